import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { registerDecorator, ValidationOptions } from 'class-validator';
import { DomainError, FieldViolation } from '../errors/domain-error';
import { Reason } from '../errors/error-codes';

function flatten(errors: ValidationError[], parent = ''): FieldViolation[] {
  const out: FieldViolation[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints) {
      out.push({ field, description: Object.values(e.constraints).join('; ') });
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

/** Validation failures become INVALID_ARGUMENT with one BadRequest field violation per field. */
function validationErrorFactory(errors: ValidationError[]): DomainError {
  const violations = flatten(errors);
  const byField = new Map<string, string>();
  for (const v of violations) byField.set(v.field, byField.has(v.field) ? `${byField.get(v.field)}; ${v.description}` : v.description);
  const fieldViolations = [...byField].map(([field, description]) => ({ field, description }));
  const summary = fieldViolations.map((v) => `${v.field}: ${v.description}`).join('; ');
  return DomainError.invalidArgument(`Invalid request: ${summary}`, fieldViolations);
}

/** How deeply a request body may nest objects and arrays. */
export const MAX_BODY_DEPTH = 32;

/** A string PostgreSQL cannot store or compare: a NUL character, or an unpaired UTF-16 surrogate. */
// eslint-disable-next-line no-control-regex -- the NUL character is what this looks for
const MALFORMED = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function isMalformedString(value: string): boolean {
  return MALFORMED.test(value);
}

/**
 * Checks a request's body, query or path values once, at the edge, without
 * recursion (so no input can exhaust the stack): nesting beyond MAX_BODY_DEPTH
 * is BODY_TOO_DEEP, and a malformed string (in a value or a key) is
 * VALIDATION_FAILED with a field violation naming where it is.
 */
export function assertWellFormed(value: unknown): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (isMalformedString(v)) throw DomainError.invalidField(path || 'body', 'must not contain NUL characters or unpaired UTF-16 surrogates');
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) {
      throw DomainError.invalidArgument(`The request nests more than ${MAX_BODY_DEPTH} levels deep.`, undefined, Reason.BODY_TOO_DEEP);
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 }));
      continue;
    }
    for (const [key, item] of Object.entries(v)) {
      const field = path ? `${path}.${key}` : key;
      if (isMalformedString(key)) throw DomainError.invalidField(field, 'must not contain NUL characters or unpaired UTF-16 surrogates');
      stack.push({ value: item, path: field, depth: depth + 1 });
    }
  }
}

/** Drops properties whose value is null, at every depth of plain objects (arrays keep their items); input is depth-checked first. */
function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v !== null && typeof v === 'object' ? stripNulls(v) : v));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = stripNulls(v);
  return out;
}

/**
 * Every body, query and path value is checked for depth and malformed strings
 * first; bodies then treat a null field as absent (as proto3 JSON does); then
 * the DTO validates.
 */
class ContractValidationPipe extends ValidationPipe {
  /** Query DTOs an empty query string is known to satisfy (a deterministic answer, so worked out once per class). */
  private readonly emptyQueryValid = new WeakSet<object>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Most reads carry no query string: their DTO need not be transformed and validated again each time.
    const emptyQuery = metadata.type === 'query' && typeof metadata.metatype === 'function' && isEmptyObject(value);
    if (emptyQuery && this.emptyQueryValid.has(metadata.metatype as object)) return new (metadata.metatype as new () => unknown)();
    if (metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param') assertWellFormed(value);
    const result = await super.transform(metadata.type === 'body' ? stripNulls(value) : value, metadata);
    if (emptyQuery) this.emptyQueryValid.add(metadata.metatype as object);
    return result;
  }
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const _key in value) return false;
  return true;
}

/**
 * The global pipe: strict types (no implicit conversion), unknown fields dropped
 * (the contract ignores them), null fields treated as absent, errors in the
 * contract's body.
 */
export function createValidationPipe(): ValidationPipe {
  return new ContractValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: validationErrorFactory,
  });
}

const INT64 = /^-?\d{1,19}$/;

/** int64 in a request: a JSON string or number; normalised to a decimal string. */
export function ToInt64String(): PropertyDecorator {
  return Transform(({ value }) => {
    if (typeof value === 'number' && Number.isInteger(value)) return String(value);
    if (typeof value === 'string' && INT64.test(value.trim())) return String(BigInt(value.trim()));
    return value;
  });
}

/** Validates an int64 decimal string within [min, max]. */
export function IsInt64InRange(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isInt64InRange',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `must be an integer (string or number) from ${min} to ${max}`, ...options },
      validator: {
        validate(value: unknown) {
          if (typeof value !== 'string' || !INT64.test(value)) return false;
          const n = Number(value);
          return n >= min && n <= max;
        },
      },
    });
  };
}

/** Query strings: "true"/"false"/"1"/"0" become booleans; anything else stays and fails @IsBoolean. */
export function QueryBoolean(): PropertyDecorator {
  return Transform(({ value }) => {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    return value;
  });
}

/** Query strings: a whole number becomes a number; anything else stays and fails @IsInt. */
export function QueryInt(): PropertyDecorator {
  return Transform(({ value }) => {
    if (typeof value === 'number') return value;
    if (typeof value === 'string' && /^-?\d{1,9}$/.test(value.trim())) return Number(value.trim());
    return value;
  });
}

/** Query arrays: repeated keys or a comma-separated value become a string array. */
export function QueryStringArray(): PropertyDecorator {
  return Transform(({ value }) => {
    if (value === undefined) return undefined;
    const list = Array.isArray(value) ? value : [value];
    return list.flatMap((v) => (typeof v === 'string' ? v.split(',') : [v])).filter((v) => v !== '');
  });
}

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const SLUG_MESSAGE = 'must be 2 to 63 characters of lowercase letters, digits and "-", not starting or ending with "-"';

/** An exact origin: scheme://host[:port], nothing after it. */
function isOrigin(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === value;
  } catch {
    return false;
  }
}

export function IsOriginList(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isOriginList',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'must be an array of at most 100 origins such as https://app.example.com (scheme, host, optional port; no path)', ...options },
      validator: { validate: (value: unknown) => Array.isArray(value) && value.length <= 100 && value.every(isOrigin) },
    });
}

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** A DNS host name (lowercase), or the empty string. */
export function IsHostnameOrEmpty(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isHostnameOrEmpty',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'must be a lowercase DNS host name such as login.example.com, or empty', ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && (value === '' || HOSTNAME.test(value)) },
    });
}
