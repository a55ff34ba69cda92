import { AsyncLocalStorage } from 'node:async_hooks';

/** What log lines of one request carry: its id, and its tenant and sector once the guards know them. */
export interface RequestContext {
  requestId: string;
  tenantId?: string;
  sectorId?: string;
}

/** The request a piece of code runs for (set by the request-id middleware, filled in by the role guard). */
export const requestContext = new AsyncLocalStorage<RequestContext>();

/** Records the tenant and sector of the current request, when there is one. */
export function noteRequestScope(tenantId: string, sectorId?: string): void {
  const store = requestContext.getStore();
  if (!store) return;
  store.tenantId = tenantId;
  if (sectorId !== undefined) store.sectorId = sectorId;
}
