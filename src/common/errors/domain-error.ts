import { ErrorCode } from './error-codes';

export interface FieldViolation {
  field: string;
  description: string;
}

export interface DomainErrorOptions {
  /** Extra ErrorInfo metadata (string values only, as google.rpc.ErrorInfo has it). */
  metadata?: Record<string, string>;
  /** One entry per bad request field; becomes a google.rpc.BadRequest detail. */
  fieldViolations?: FieldViolation[];
  /** Seconds until a retry may succeed; becomes RetryInfo and Retry-After. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/**
 * The one error type services throw. It speaks the domain (a canonical code and a
 * stable reason), never HTTP; the error mapper turns it into the wire body.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly reason: string,
    message: string,
    readonly options: DomainErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
  }

  static invalidArgument(message: string, fieldViolations?: FieldViolation[], reason = 'VALIDATION_FAILED'): DomainError {
    return new DomainError(ErrorCode.INVALID_ARGUMENT, reason, message, { fieldViolations });
  }

  static invalidField(field: string, description: string): DomainError {
    return DomainError.invalidArgument(`${field}: ${description}`, [{ field, description }]);
  }

  static notFound(reason: string, message: string): DomainError {
    return new DomainError(ErrorCode.NOT_FOUND, reason, message);
  }

  static permissionDenied(message = 'The caller lacks the role this operation requires.', reason = 'ROLE_REQUIRED'): DomainError {
    return new DomainError(ErrorCode.PERMISSION_DENIED, reason, message);
  }

  static unauthenticated(reason: string, message: string): DomainError {
    return new DomainError(ErrorCode.UNAUTHENTICATED, reason, message);
  }

  static alreadyExists(reason: string, message: string): DomainError {
    return new DomainError(ErrorCode.ALREADY_EXISTS, reason, message);
  }

  static failedPrecondition(reason: string, message: string): DomainError {
    return new DomainError(ErrorCode.FAILED_PRECONDITION, reason, message);
  }

  static aborted(reason: string, message: string): DomainError {
    return new DomainError(ErrorCode.ABORTED, reason, message);
  }

  /** UNAVAILABLE; with `retryAfterSeconds`, a Retry-After header says when to try again. */
  static unavailable(reason: string, message: string, cause?: unknown, retryAfterSeconds?: number): DomainError {
    return new DomainError(ErrorCode.UNAVAILABLE, reason, message, { cause, retryAfterSeconds });
  }
}
