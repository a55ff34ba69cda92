/**
 * The wire contract as the e2e specs check it: the google.rpc detail types of the
 * error body (docs/api.md, Errors), the value formats, the SectorSettings field names
 * (as published) and the whole-body error assertion.
 */

export const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
export const REQUEST_INFO = 'type.googleapis.com/google.rpc.RequestInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/** ErrorInfo.domain of every error the service answers. */
const ERROR_DOMAIN = 'iam.service';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** An int64 on the wire: a string of digits. */
export const INT64 = /^\d+$/;
/** A Unix time in seconds on the wire: a positive int64 string. */
export const UNIX = /^[1-9]\d*$/;
export const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;
/** At least 128 random bits, base64url (the service uses 256 plus the tenant id). */
export const TRANSACTION_ID = /^[\w-]{22,}$/;

/** The SectorSettings fields exactly as the published interface spells them, in its order (the response adds sectorID). */
export const SECTOR_SETTINGS_FIELDS: readonly string[] = [
  'MFARequired',
  'SelfSignUpAllowed',
  'AllowUserCreationForNonAdmins',
  'AllowUserReadForNonAdmins',
  'OTPEmailSubject',
  'OTPEmailBodyTemplate',
  'OTPEmailBodyHTMLTemplate',
  'OTPSMSTemplate',
  'InviteEmailSubject',
  'InviteEmailBodyTemplate',
  'InviteEmailBodyHTMLTemplate',
  'InviteExpirationHours',
  'AccessTokenDuration',
  'PasswordResetEmailSubject',
  'PasswordResetEmailBodyTemplate',
  'PasswordResetEmailBodyHTMLTemplate',
  'PasswordResetTimeoutMinutes',
  'WebAuthnRPID',
  'WebAuthnRPDisplayName',
  'WebAuthnRPOrigins',
  'MagicLinkURL',
  'WebAuthnDebug',
  'MagicLinkLoginEnabled',
  'SessionLifetimeSeconds',
  'SessionIdleTimeoutSeconds',
  'AuditRetentionDays',
  'SCIMSendInvitations',
  // A sector's look and language.
  'BrandDisplayName',
  'BrandPrimaryColor',
  'BrandBackgroundColor',
  'BrandPrimaryColorDark',
  'BrandBackgroundColorDark',
  'TermsURL',
  'PrivacyURL',
  'SupportEmail',
  'DefaultLanguage',
  'LocalizedTemplates',
  'BrandLogoURL',
  'BrandFaviconURL',
];

/** The sign-in options' branding of a sector that sets none: its own name, the built-in look. */
export function unbranded(displayName: string) {
  return {
    displayName,
    logoURL: '',
    faviconURL: '',
    primaryColor: '',
    primaryTextColor: '',
    backgroundColor: '',
    primaryColorDark: '',
    primaryTextColorDark: '',
    backgroundColorDark: '',
    termsURL: '',
    privacyURL: '',
    supportEmail: '',
  };
}

/** A response as supertest gives it (only what the assertions read). */
export type WireResponse = { status: number; body: unknown; headers: Record<string, string> };
export type ErrorBody = { code: number; message: string; details: Array<Record<string, unknown>> };
export type FieldViolation = { field: string; description: string };

export interface WireErrorOptions {
  /** ErrorInfo.metadata exactly; any object when not given. */
  metadata?: Record<string, string>;
  /** A BadRequest detail whose fieldViolations name exactly these fields (in any order), each with a description. */
  fields?: string[];
  /** A RetryInfo detail whose retryDelay ("<n>s") matches the Retry-After header. */
  retry?: boolean;
}

/** Asserts the status, the code and the ErrorInfo / RequestInfo details of the contract error body, and returns the body. */
export function expectError(res: WireResponse, status: number, code: number, reason?: string): ErrorBody {
  const body = res.body as ErrorBody;
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(typeof body.message).toBe('string');
  const info = body.details.find((d) => d['@type'] === ERROR_INFO);
  const req = body.details.find((d) => d['@type'] === REQUEST_INFO);
  expect(info).toBeDefined();
  expect(req?.requestId).toBe(res.headers['x-request-id']);
  if (reason) expect(info?.reason).toBe(reason);
  return body;
}

/**
 * Asserts the whole contract error body (docs/api.md, Errors) and returns it: status,
 * code, a non-empty message, ErrorInfo (reason, domain iam.service, metadata),
 * RequestInfo (requestId = the X-Request-Id header, servingData) and nothing else
 * but the BadRequest (`opts.fields`) and RetryInfo (`opts.retry`) details asked
 * for; on a 401, WWW-Authenticate: Bearer.
 */
export function expectWireError(res: WireResponse, status: number, code: number, reason: string, opts: WireErrorOptions = {}): ErrorBody {
  expectError(res, status, code, reason);
  const requestId = res.headers['x-request-id'];
  expect(requestId).toEqual(expect.any(String));
  const details: unknown[] = [
    { '@type': ERROR_INFO, reason, domain: ERROR_DOMAIN, metadata: opts.metadata ?? expect.any(Object) },
    { '@type': REQUEST_INFO, requestId, servingData: expect.any(String) },
  ];
  if (opts.fields) details.push({ '@type': BAD_REQUEST, fieldViolations: expect.any(Array) });
  if (opts.retry) details.push({ '@type': RETRY_INFO, retryDelay: expect.stringMatching(/^[1-9]\d*s$/) });
  expect(res.body).toEqual({ code, message: expect.any(String), details });
  const body = res.body as ErrorBody;
  expect(body.message.length).toBeGreaterThan(0);
  if (opts.fields) {
    // One violation per named field, in any order (the service names them in validation order), each described.
    const byField = (a: FieldViolation, b: FieldViolation) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0);
    const expected = [...opts.fields].sort().map((field) => ({ field, description: expect.stringMatching(/\S/) }));
    expect([...fieldViolations(body)].sort(byField)).toEqual(expected);
  }
  if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer');
  if (opts.retry) {
    const delay = body.details.find((d) => d['@type'] === RETRY_INFO)!.retryDelay as string;
    expect(res.headers['retry-after']).toBe(delay.replace(/s$/, ''));
  }
  return body;
}

/** The claims of a JWT (its payload, not verified). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The BadRequest field violations of an error body ([] when it has none). */
export function fieldViolations(body: unknown): FieldViolation[] {
  const details = (body as Partial<ErrorBody> | undefined)?.details ?? [];
  const bad = details.find((d) => d['@type'] === BAD_REQUEST);
  return (bad?.fieldViolations as FieldViolation[] | undefined) ?? [];
}
