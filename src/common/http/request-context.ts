import { AsyncLocalStorage } from 'node:async_hooks';

/** Who acted in a request, as the audit trail names them. */
export interface RequestActor {
  kind: 'user' | 'apiToken' | 'system' | 'anonymous';
  id: string;
}

/** What log lines of one request carry: its id, and its tenant and sector once the guards know them. */
export interface RequestContext {
  requestId: string;
  /** The client address (as TRUST_PROXY resolves it), for the audit trail. */
  clientIp?: string;
  tenantId?: string;
  sectorId?: string;
  /** The authenticated caller, once the role guard knows it. */
  actor?: RequestActor;
  /** The client's User-Agent (trimmed), for the sessions a sign-in opens. */
  userAgent?: string;
  /** Set once the request has waited for the authorization-state cache to hear every change committed before it arrived. */
  authSynced?: boolean;
}

/** The request a piece of code runs for (set by the request-id middleware, filled in by the role guard). */
export const requestContext = new AsyncLocalStorage<RequestContext>();

/** Each (Node) request's context, so a later stage of the same request can re-enter it. */
const contexts = new WeakMap<object, RequestContext>();

/** Runs the rest of a request (`next`) in a new context for it. */
export function runRequestContext(req: object, context: RequestContext, next: () => void): void {
  contexts.set(req, context);
  requestContext.run(context, next);
}

/**
 * Continues a request in its context, when the code before lost it (an adapter
 * whose body reading resumes on the socket's async context, not the request's).
 */
export function resumeRequestContext(req: object, next: () => void): void {
  const context = contexts.get(req);
  if (context === undefined || requestContext.getStore() === context) next();
  else requestContext.run(context, next);
}

/** Records the tenant and sector of the current request, when there is one. */
export function noteRequestScope(tenantId: string, sectorId?: string, actor?: RequestActor): void {
  const store = requestContext.getStore();
  if (!store) return;
  store.tenantId = tenantId;
  if (sectorId !== undefined) store.sectorId = sectorId;
  if (actor !== undefined) store.actor = actor;
}
