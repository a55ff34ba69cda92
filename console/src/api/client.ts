/**
 * The one way the browser app talks to the service: JSON over fetch to the public
 * API (`/api/v1/...`), the access token attached, errors parsed into `ApiError`.
 *
 * Tokens live in this module's memory only (never localStorage or sessionStorage):
 * a reload signs the user out. An access token about to expire, or refused as
 * expired, is renewed once with the session's refresh token (docs/api.md,
 * "Sessions and refresh tokens"); refreshes never run concurrently, since the
 * service treats two uses of one refresh token as theft.
 */

export interface FieldViolation {
  field: string;
  description: string;
}

interface ErrorDetail {
  '@type'?: string;
  reason?: string;
  metadata?: Record<string, string>;
  requestId?: string;
  fieldViolations?: FieldViolation[];
  retryDelay?: string;
}

interface ErrorBody {
  code?: number;
  message?: string;
  details?: ErrorDetail[];
}

/** An error answer of the service, in words: its message, reason, field violations and request id. */
export class ApiError extends Error {
  status: number;
  code: number;
  reason?: string;
  fieldViolations: FieldViolation[];
  requestId?: string;
  metadata: Record<string, string>;
  /** Seconds to wait before retrying (RetryInfo / Retry-After), when the service says. */
  retryAfterSeconds?: number;

  constructor(status: number, body: ErrorBody | undefined, fallback: string, retryAfterHeader?: string | null) {
    super(body?.message || fallback);
    this.name = 'ApiError';
    this.status = status;
    this.code = body?.code ?? 2;
    this.fieldViolations = [];
    this.metadata = {};
    for (const detail of body?.details ?? []) {
      if (detail.reason !== undefined) {
        this.reason = detail.reason;
        this.metadata = detail.metadata ?? {};
      }
      if (detail.requestId) this.requestId = detail.requestId;
      if (Array.isArray(detail.fieldViolations)) this.fieldViolations.push(...detail.fieldViolations);
      if (detail.retryDelay) {
        const seconds = Number.parseFloat(detail.retryDelay);
        if (Number.isFinite(seconds)) this.retryAfterSeconds = Math.ceil(seconds);
      }
    }
    if (this.retryAfterSeconds === undefined && retryAfterHeader) {
      const seconds = Number(retryAfterHeader);
      if (Number.isFinite(seconds)) this.retryAfterSeconds = seconds;
    }
  }

  /** The description of the violation of `field` (or of a nested field under it), if any. */
  violation(field: string): string | undefined {
    return this.fieldViolations.find((v) => v.field === field || v.field.startsWith(`${field}.`))?.description;
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

/** The tokens a successful sign-in (or a refresh) answers. */
export interface SessionTokens {
  token: string;
  refreshToken?: string;
}

const API_ORIGIN: string = (import.meta.env.VITE_API_ORIGIN as string | undefined) ?? window.location.origin;

let accessToken: string | null = null;
let refreshToken: string | null = null;
let refreshing: Promise<boolean> | null = null;
const listeners = new Set<(token: string | null) => void>();

/** Seconds before expiry at which a token is renewed ahead of use. */
const RENEW_MARGIN_SECONDS = 30;

/** The decoded claims of a JWT (no verification: the service verifies; this is for display and expiry). */
export function decodeClaims(token: string): Record<string, unknown> {
  try {
    const payload = token.split('.')[1] ?? '';
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function expiresSoon(token: string): boolean {
  const exp = Number(decodeClaims(token).exp);
  return Number.isFinite(exp) && exp - RENEW_MARGIN_SECONDS <= Date.now() / 1000;
}

function notify(): void {
  for (const listener of listeners) listener(accessToken);
}

/** Stores the tokens of a completed sign-in (memory only). */
export function setSession(tokens: SessionTokens): void {
  accessToken = tokens.token;
  refreshToken = tokens.refreshToken ?? null;
  notify();
}

/** Replaces the access token of the current session (a step-up answers one), keeping its refresh token. */
export function setAccessToken(token: string): void {
  accessToken = token;
  notify();
}

/** Forgets the tokens (sign-out, or a session the service ended). */
export function clearSession(): void {
  accessToken = null;
  refreshToken = null;
  notify();
}

export function currentAccessToken(): string | null {
  return accessToken;
}

/** Called with the new access token (or null) whenever the session changes. */
export function onSessionChange(listener: (token: string | null) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

async function refreshOnce(): Promise<boolean> {
  if (!refreshToken) return false;
  if (!refreshing) {
    const presented = refreshToken;
    refreshing = (async () => {
      try {
        const result = await send<SessionTokens>('POST', '/api/v1/token/refresh', undefined, { refreshToken: presented }, false);
        setSession(result);
        return true;
      } catch (error) {
        // An ended session, a reused or unknown refresh token: the user signs in again.
        if (error instanceof ApiError && error.status === 401) clearSession();
        return false;
      } finally {
        refreshing = null;
      }
    })();
  }
  return refreshing;
}

function url(path: string, query?: Query): string {
  const target = new URL(path, API_ORIGIN);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') target.searchParams.set(key, String(value));
  }
  return target.toString();
}

/** A request with credentials of its own: a bearer token that is not the session's (never renewed), or none; this origin's cookies. */
interface OwnCredentials {
  token?: string;
  credentials: RequestCredentials;
}

async function send<T>(method: string, path: string, query: Query | undefined, body: unknown, authenticate: boolean, own?: OwnCredentials): Promise<T> {
  if (authenticate && accessToken && refreshToken && expiresSoon(accessToken)) await refreshOnce();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const token = own ? (own.token ?? null) : authenticate ? accessToken : null;
  if (token) headers.Authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(url(path, query), { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: own?.credentials ?? 'omit' });
  } catch {
    throw new ApiError(0, { code: 14 }, 'The service could not be reached. Check the connection and try again.');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = new ApiError(response.status, parsed as ErrorBody | undefined, `The service answered an unexpected error (HTTP ${response.status}).`, response.headers.get('Retry-After'));
    // An access token that expired under us: renew it once and replay the request.
    if (authenticate && token && response.status === 401 && (error.reason === 'TOKEN_EXPIRED' || error.reason === 'TOKEN_INVALID') && refreshToken) {
      if (await refreshOnce()) return send<T>(method, path, query, body, authenticate);
    }
    if (authenticate && token && response.status === 401 && token === accessToken && (error.reason === 'SESSION_REVOKED' || error.reason === 'TOKEN_EXPIRED')) clearSession();
    throw error;
  }
  return parsed as T;
}

/** JSON calls to the service. Paths are relative to the API origin, e.g. `/api/v1/users/{sub}`. */
export const api = {
  get: <T>(path: string, query?: Query): Promise<T> => send<T>('GET', path, query, undefined, true),
  post: <T>(path: string, body?: unknown): Promise<T> => send<T>('POST', path, undefined, body ?? {}, true),
  put: <T>(path: string, body?: unknown): Promise<T> => send<T>('PUT', path, undefined, body ?? {}, true),
  patch: <T>(path: string, body?: unknown): Promise<T> => send<T>('PATCH', path, undefined, body ?? {}, true),
  del: <T>(path: string): Promise<T> => send<T>('DELETE', path, undefined, undefined, true),
  /** A public GET (what a sign-in page offers): never carries the access token. */
  getPublic: <T>(path: string, query?: Query): Promise<T> => send<T>('GET', path, query, undefined, false),
  /** A public POST (sign-in steps, links): never carries the access token. */
  postPublic: <T>(path: string, body?: unknown): Promise<T> => send<T>('POST', path, undefined, body ?? {}, false),
  /**
   * A POST with the access token of a sign-in that is not this page's session (nothing is
   * stored or renewed), with this origin's cookies: the OpenID Provider's sign-in page
   * completes its request this way (the provider's cookie names the browser that started it).
   */
  postWithToken: <T>(token: string, path: string, body?: unknown): Promise<T> => send<T>('POST', path, undefined, body ?? {}, false, { token, credentials: 'same-origin' }),
  /**
   * A public POST (no access token) with this origin's cookies: declining the OpenID Provider's
   * request needs no sign-in, only the provider's cookie of the browser that started it.
   */
  postPublicWithCookies: <T>(path: string, body?: unknown): Promise<T> => send<T>('POST', path, undefined, body ?? {}, false, { credentials: 'same-origin' }),
};

/** Encodes one path segment (ids from the API are opaque). */
export const seg = (value: string): string => encodeURIComponent(value);
