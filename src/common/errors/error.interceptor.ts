import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { catchError, Observable, throwError } from 'rxjs';
import { ensureRequestId, IncomingRequest } from '../http/request';
import { toWireError, WireError } from './error-mapper';

/** Carries an error the interceptor has already mapped to the filter, which only writes it. */
export class MappedError extends Error {
  constructor(readonly wire: WireError) {
    super(wire.body.message);
    this.name = 'MappedError';
  }
}

/**
 * Maps every error a handler throws to the wire error body (one mapper:
 * toWireError), run by NestJS's own interceptor consumer; the global filter maps
 * what fails outside handlers with the same mapper.
 */
@Injectable()
export class ErrorInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(catchError((err: unknown) => throwError(() => mapped(context, err))));
  }
}

function mapped(context: ExecutionContext, err: unknown): MappedError {
  const req = context.switchToHttp().getRequest<IncomingRequest>();
  return new MappedError(toWireError(err, ensureRequestId(req), req.originalUrl ?? req.url));
}
