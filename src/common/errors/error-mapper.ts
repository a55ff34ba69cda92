import { HttpException, HttpStatus, Logger } from '@nestjs/common';
import { isDatabaseUnavailable, sqlStateOf } from './db-errors';
import { DomainError } from './domain-error';
import { ErrorCode, httpStatusOf, Reason } from './error-codes';
import { redactUrl } from '../http/request';

const ERROR_DOMAIN = 'iam.service';

const TYPE_ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const TYPE_REQUEST_INFO = 'type.googleapis.com/google.rpc.RequestInfo';
const TYPE_BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const TYPE_RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

interface WireErrorBody {
  code: number;
  message: string;
  details: Array<Record<string, unknown> & { '@type': string }>;
}

export interface WireError {
  status: number;
  body: WireErrorBody;
  headers: Record<string, string>;
}

const logger = new Logger('Errors');

/** Turns framework, body-parser and driver errors into DomainErrors; unknown ones become INTERNAL. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof HttpException) return fromHttpException(err);
  const bodyParserType = typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;
  if (bodyParserType === 'entity.parse.failed') {
    return DomainError.invalidArgument('The request body is not valid JSON.', undefined, Reason.MALFORMED_JSON);
  }
  if (bodyParserType === 'entity.too.large') {
    return DomainError.invalidArgument('The request body exceeds 1 MiB.', undefined, Reason.BODY_TOO_LARGE);
  }
  if (typeof bodyParserType === 'string' && bodyParserType.startsWith('encoding.') || bodyParserType === 'charset.unsupported') {
    return DomainError.invalidArgument('The request body encoding is not supported.', undefined, Reason.VALIDATION_FAILED);
  }
  // Any other client error the body parser reports (a body that does not inflate as its
  // Content-Encoding says, a wrong Content-Length, …): the request is at fault, not the service.
  if (isExposedClientError(err)) {
    return DomainError.invalidArgument(`The request body cannot be read: ${(err as Error).message}.`, undefined, Reason.VALIDATION_FAILED);
  }
  // A tenant database made read-only while the tenant moves to another server (iam-tenant-move): writes wait for the switch.
  if (sqlStateOf(err) === READ_ONLY_SQL_TRANSACTION) {
    return DomainError.unavailable(Reason.TENANT_MOVING, "This tenant's data is moving to another database server; try the change again in a moment.", err, TENANT_MOVING_RETRY_AFTER_SECONDS);
  }
  if (isDatabaseUnavailable(err)) {
    return DomainError.unavailable(Reason.DATABASE_UNAVAILABLE, 'The database is unavailable; try again later.', err, DATABASE_RETRY_AFTER_SECONDS);
  }
  return new DomainError(ErrorCode.INTERNAL, Reason.INTERNAL, 'An internal error occurred.', { cause: err });
}

/** An http-errors 4xx error meant to be shown to the client (`expose`), as body-parser throws them. */
function isExposedClientError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { expose?: unknown; status?: unknown; statusCode?: unknown };
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  return e.expose === true && typeof status === 'number' && status >= 400 && status < 500;
}

/** SQLSTATE of a write in a read-only transaction. */
const READ_ONLY_SQL_TRANSACTION = '25006';
/** What a 503 for a write during a tenant's move tells clients to wait (Retry-After): the pause lasts about as long as the copy. */
const TENANT_MOVING_RETRY_AFTER_SECONDS = 1;

/** What a 503 for an unreachable database tells clients to wait (Retry-After): pools reconnect on the next request. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

function fromHttpException(err: HttpException): DomainError {
  const status = err.getStatus();
  const cause = (err as { cause?: unknown }).cause;
  if (cause !== undefined && cause !== err) {
    const inner = toDomainError(cause);
    if (inner.code !== ErrorCode.INTERNAL) return inner;
  }
  switch (status) {
    case HttpStatus.NOT_FOUND:
      return DomainError.notFound(Reason.ROUTE_NOT_FOUND, 'No such route.');
    case HttpStatus.PAYLOAD_TOO_LARGE:
      return DomainError.invalidArgument('The request body exceeds 1 MiB.', undefined, Reason.BODY_TOO_LARGE);
    case HttpStatus.BAD_REQUEST:
      return DomainError.invalidArgument(messageOf(err) ?? 'The request is invalid.');
    case HttpStatus.UNAUTHORIZED:
      return DomainError.unauthenticated(Reason.CREDENTIAL_MISSING, 'A valid bearer credential is required.');
    case HttpStatus.FORBIDDEN:
      return DomainError.permissionDenied();
    case HttpStatus.METHOD_NOT_ALLOWED:
      return DomainError.notFound(Reason.ROUTE_NOT_FOUND, 'No such route.');
    case HttpStatus.UNSUPPORTED_MEDIA_TYPE:
      return DomainError.invalidArgument('The request body must be JSON.');
    default:
      return new DomainError(ErrorCode.INTERNAL, Reason.INTERNAL, 'An internal error occurred.', { cause: err });
  }
}

function messageOf(err: HttpException): string | undefined {
  const response = err.getResponse();
  if (typeof response === 'string') return response;
  const m = (response as { message?: unknown }).message;
  if (typeof m === 'string') return m;
  if (Array.isArray(m)) return m.join('; ');
  return undefined;
}

/**
 * The one mapper from any error to the wire error body (docs/api.md, Errors), called
 * by the global exception filter. INTERNAL errors get a generic
 * message; the real error is logged with the request id, never sent.
 */
export function toWireError(err: unknown, requestId: string, path?: string): WireError {
  const domain = toDomainError(err);
  const status = httpStatusOf(domain.code);
  path = path === undefined ? undefined : redactUrl(path);
  if (domain.code === ErrorCode.INTERNAL) {
    const real = domain.options.cause ?? domain;
    logger.error(`[${requestId}] ${path ?? ''} internal error: ${describe(real)}`, real instanceof Error ? real.stack : undefined);
  } else if (domain.code === ErrorCode.UNAVAILABLE) {
    logger.warn(`[${requestId}] ${path ?? ''} unavailable: ${describe(domain.options.cause ?? domain)}`);
  }
  const headers: Record<string, string> = { 'X-Request-Id': requestId };
  const details: WireErrorBody['details'] = [
    { '@type': TYPE_ERROR_INFO, reason: domain.reason, domain: ERROR_DOMAIN, metadata: domain.options.metadata ?? {} },
    { '@type': TYPE_REQUEST_INFO, requestId, servingData: '' },
  ];
  if (domain.options.fieldViolations?.length) {
    details.push({ '@type': TYPE_BAD_REQUEST, fieldViolations: domain.options.fieldViolations });
  }
  if (domain.options.retryAfterSeconds !== undefined) {
    const seconds = Math.max(1, Math.ceil(domain.options.retryAfterSeconds));
    details.push({ '@type': TYPE_RETRY_INFO, retryDelay: `${seconds}s` });
    headers['Retry-After'] = String(seconds);
  }
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  return { status, body: { code: domain.code, message: domain.message, details }, headers };
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}
