import { Injectable, NestMiddleware } from '@nestjs/common';
import type { IncomingRequest, OutgoingResponse } from '../common/http/request';
import { requestContext } from '../common/http/request-context';

const USER_AGENT_MAX = 512;

/**
 * Notes what a new session records about its client (the User-Agent header) in
 * the request's context, so the sign-in engine can read it without every
 * endpoint passing it down. (No context of its own: one per request is enough.)
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  use(req: IncomingRequest, _res: OutgoingResponse, next: () => void): void {
    const store = requestContext.getStore();
    const ua = req.headers['user-agent'];
    if (store) store.userAgent = typeof ua === 'string' ? ua.slice(0, USER_AGENT_MAX) : '';
    next();
  }
}

/** The current request's User-Agent ('' outside a request). */
export function currentUserAgent(): string {
  return requestContext.getStore()?.userAgent ?? '';
}
