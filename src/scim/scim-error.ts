import { ArgumentsHost, Catch, ExceptionFilter, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { ErrorFormats } from '../common/errors/error-formats';
import { toDomainError, toWireError } from '../common/errors/error-mapper';
import { ensureRequestId, IncomingRequest } from '../common/http/request';
import { ScimFilterError } from './scim-filter';

const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

/** A SCIM protocol error (RFC 7644 §3.12): the HTTP status and, where RFC 7644 defines one, its `scimType`. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: string,
    /** For a 429: seconds until a retry can succeed (the Retry-After header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }
}

/**
 * Every error of a SCIM route in SCIM's own error body (`schemas`, `status` as a
 * string, `scimType`, `detail`) instead of the service's: SCIM errors as they are;
 * everything else through the service's one error mapper (which logs what must be
 * logged and decides the status), then re-dressed. A missing or wrong credential is
 * 401 whatever the reason (a user's token, another sector's API token): SCIM knows
 * only the sector's own tokens.
 */
@Catch()
export class ScimExceptionFilter implements ExceptionFilter, OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly formats: ErrorFormats,
  ) {}

  /** Also for what fails before a SCIM route is reached (a body the JSON parser refuses). */
  onModuleInit(): void {
    this.formats.register('/scim/v2/', this);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<IncomingRequest>();
    const res = http.getResponse<unknown>();
    const requestId = ensureRequestId(req);
    const headers: Record<string, string> = { 'X-Request-Id': requestId };
    let body: Record<string, unknown>;
    if (exception instanceof ScimError || exception instanceof ScimFilterError) {
      const e = exception instanceof ScimError ? exception : new ScimError(400, exception.message, 'invalidFilter');
      if (e.retryAfterSeconds !== undefined) headers['Retry-After'] = String(e.retryAfterSeconds);
      body = errorBody(e.status, e.detail, e.scimType);
    } else {
      const domain = toDomainError(exception);
      const wire = toWireError(domain, requestId, req.originalUrl ?? req.url);
      const unauthorized = domain.code === ErrorCode.UNAUTHENTICATED || (domain.code === ErrorCode.PERMISSION_DENIED && domain.reason === Reason.ROLE_REQUIRED);
      const status = unauthorized ? 401 : wire.status;
      if (unauthorized) headers['WWW-Authenticate'] = 'Bearer';
      if (wire.headers['Retry-After']) headers['Retry-After'] = wire.headers['Retry-After'];
      const scimType =
        domain.code === ErrorCode.ALREADY_EXISTS
          ? 'uniqueness'
          : domain.reason === Reason.MALFORMED_JSON
            ? 'invalidSyntax'
            : domain.code === ErrorCode.INVALID_ARGUMENT
              ? 'invalidValue'
              : undefined;
      const detail = unauthorized ? 'An API token of this sector is required (Authorization: Bearer).' : wire.body.message;
      body = errorBody(status, detail, scimType);
    }
    const adapter = this.adapterHost.httpAdapter;
    for (const [name, value] of Object.entries(headers)) adapter.setHeader(res, name, value);
    adapter.setHeader(res, 'Content-Type', SCIM_CONTENT_TYPE);
    adapter.setHeader(res, 'Cache-Control', 'no-store');
    adapter.reply(res, body, Number(body.status));
  }
}

function errorBody(status: number, detail: string, scimType?: string): Record<string, unknown> {
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
}
