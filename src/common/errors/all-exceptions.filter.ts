import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ensureRequestId, IncomingRequest } from '../http/request';
import { toWireError } from './error-mapper';
import { ErrorFormats } from './error-formats';

/**
 * The one place errors become answers: whatever a handler, guard, pipe, the router
 * or the body parser throws is mapped by the one mapper (toWireError) and written
 * here. No global interceptor does it first: NestJS runs every interceptor through
 * rxjs and the async context on every request, errors or not, while a filter costs
 * nothing until something fails (docs/adr/0038-framework-internals.md).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly formats: ErrorFormats,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<IncomingRequest>();
    const res = http.getResponse<unknown>();
    const path = req.originalUrl ?? req.url;
    // A route with an error body of its own (SCIM) answers in it, also for what failed before routing.
    if (this.formats.answer(path ?? '', exception, host)) return;
    const wire = toWireError(exception, ensureRequestId(req), path);
    const adapter = this.adapterHost.httpAdapter;
    for (const [name, value] of Object.entries(wire.headers)) adapter.setHeader(res, name, value);
    // Over any type a handler declared (e.g. text/plain for /metrics): Fastify would refuse to send an object as text.
    adapter.setHeader(res, 'Content-Type', 'application/json; charset=utf-8');
    // Also for errors raised before the browser policy's middleware ran (e.g. the body parser's).
    adapter.setHeader(res, 'Cache-Control', 'no-store');
    adapter.reply(res, wire.body, wire.status);
  }
}
