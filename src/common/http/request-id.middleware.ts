import { Injectable, NestMiddleware } from '@nestjs/common';
import { ensureRequestId, IncomingRequest, OutgoingResponse } from './request';

/** Gives every request an id, echoed in the X-Request-Id response header. */
@Injectable()
export class RequestIdMiddleware implements NestMiddleware {
  use(req: IncomingRequest, res: OutgoingResponse, next: () => void): void {
    res.setHeader('X-Request-Id', ensureRequestId(req));
    next();
  }
}
