import { Injectable, NestMiddleware } from '@nestjs/common';
import { ensureRequestId, IncomingRequest, OutgoingResponse } from './request';
import { runRequestContext } from './request-context';

/** Gives every request an id, echoed in the X-Request-Id response header, and runs the rest of it in its log context. */
@Injectable()
export class RequestIdMiddleware implements NestMiddleware {
  use(req: IncomingRequest, res: OutgoingResponse, next: () => void): void {
    const requestId = ensureRequestId(req);
    res.setHeader('X-Request-Id', requestId);
    runRequestContext(req, { requestId, clientIp: req.ip ?? '' }, next);
  }
}
