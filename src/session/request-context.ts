import { Injectable, NestMiddleware } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingRequest, OutgoingResponse } from '../common/http/request';

interface RequestContext {
  userAgent: string;
}

const storage = new AsyncLocalStorage<RequestContext>();
const USER_AGENT_MAX = 512;

/**
 * Keeps what a new session records about its client (the User-Agent header) for
 * the rest of the request, so the sign-in engine can note it without every
 * endpoint passing it down.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  use(req: IncomingRequest, _res: OutgoingResponse, next: () => void): void {
    const ua = req.headers['user-agent'];
    storage.run({ userAgent: typeof ua === 'string' ? ua.slice(0, USER_AGENT_MAX) : '' }, next);
  }
}

/** The current request's User-Agent ('' outside a request). */
export function currentUserAgent(): string {
  return storage.getStore()?.userAgent ?? '';
}
