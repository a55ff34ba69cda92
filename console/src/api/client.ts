/**
 * The one way the browser app talks to the service: JSON over fetch to the public
 * API (`/api/v1/...`), the access token attached, errors parsed into `ApiError`.
 *
 * The access token lives in this module's memory only (never localStorage or
 * sessionStorage). The refresh token of a sign-in is handed over once to the
 * service, which keeps it in an HttpOnly cookie of the sector (docs/api.md,
 * "Browser sessions"); this page never stores it. An access token about to
 * expire, or refused as expired, is renewed with that cookie, and a reload
 * restores the session the same way (`restoreSession`). Refreshes never run
 * concurrently, not even across tabs (Web Locks), since the service treats two
 * uses of one refresh token as theft. A session the service ended is reported to
 * `onSessionEnded` listeners, not signed out, so the screen and what the user
 * typed stay.
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
/** The sector whose browser-session cookie renews the access token (null: none, signed out). */
let sessionSector: string | null = null;
let refreshing: Promise<boolean> | null = null;
const listeners = new Set<(token: string | null) => void>();
const endedListeners = new Set<() => void>();

/** The header the browser-session routes require (a cross-site page cannot send it). */
const CSRF_HEADERS = { 'X-Requested-With': 'iam-console' };
/** The Web Lock that serialises refreshes across this origin's tabs. */
const REFRESH_LOCK = 'iam-refresh';

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

const browserSessionPath = (sectorID: string): string => `/api/v1/browser-sessions/${seg(sectorID)}`;

/**
 * Stores the access token of a completed sign-in (memory only) and hands its
 * refresh token over to the service's HttpOnly cookie, then forgets it. A failed
 * hand-over leaves a session that lasts as long as its access token.
 */
export async function setSession(tokens: SessionTokens): Promise<void> {
  const sector = String(decodeClaims(tokens.token).sectorID ?? '');
  // The cookie first, then the signed-in page: a reload right after the sign-in finds the session.
  if (sector && tokens.refreshToken) {
    try {
      await send('POST', browserSessionPath(sector), undefined, { refreshToken: tokens.refreshToken }, false, { token: tokens.token, credentials: 'same-origin' });
    } catch {
      // The page keeps working with its access token; a reload then asks for a sign-in.
    }
  }
  accessToken = tokens.token;
  sessionSector = sector || null;
  notify();
}

/** Replaces the access token of the current session (a step-up answers one), keeping its refresh token. */
export function setAccessToken(token: string): void {
  accessToken = token;
  notify();
}

/** Forgets the tokens (sign-out). */
export function clearSession(): void {
  accessToken = null;
  sessionSector = null;
  notify();
}

/** Signs this browser out of the sector at the service: ends the cookie's session and drops the cookie (best effort). */
export async function endBrowserSession(sectorID: string): Promise<void> {
  try {
    await send('DELETE', browserSessionPath(sectorID), undefined, undefined, false, { headers: CSRF_HEADERS, credentials: 'same-origin' });
  } catch {
    // Already ended, or the service is unreachable: the page forgets the session all the same.
  }
}

/**
 * Restores the session of a sector from its browser-session cookie (a reload, or a
 * sign-in in another tab): true when an access token was obtained.
 */
export async function restoreSession(sectorID: string): Promise<boolean> {
  if (!sessionSector || sessionSector !== sectorID) {
    accessToken = null;
    sessionSector = sectorID;
  }
  return refreshOnce();
}

export function currentAccessToken(): string | null {
  return accessToken;
}

/** Called with the new access token (or null) whenever the session changes. */
export function onSessionChange(listener: (token: string | null) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Called when the service ended the session under the page (revoked, or a refresh refused); the page stays. */
export function onSessionEnded(listener: () => void): () => void {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
}

/** The session ended at the service: the access token is dropped, the sector kept (a sign-in elsewhere can restore it). */
function sessionEnded(): void {
  if (accessToken === null) return;
  accessToken = null;
  for (const listener of endedListeners) listener();
}

/** Runs `task` holding the cross-tab refresh lock where the browser has Web Locks (else within this tab only). */
function withRefreshLock<T>(task: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  return locks ? (locks.request(REFRESH_LOCK, task) as Promise<T>) : task();
}

async function refreshOnce(): Promise<boolean> {
  const sector = sessionSector;
  if (!sector) return false;
  if (!refreshing) {
    refreshing = (async () => {
      try {
        const result = await withRefreshLock(() =>
          send<{ token: string }>('POST', `${browserSessionPath(sector)}/refresh`, undefined, {}, false, { headers: CSRF_HEADERS, credentials: 'same-origin' }),
        );
        if (sessionSector !== sector) return false;
        accessToken = result.token;
        notify();
        return true;
      } catch (error) {
        // An ended session, a reused or unknown cookie, none at all: the user signs in again.
        if (error instanceof ApiError && error.status === 401) sessionEnded();
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

/** A request with credentials of its own: a bearer token that is not the session's (never renewed), or none; this origin's cookies; extra headers. */
interface OwnCredentials {
  token?: string;
  credentials: RequestCredentials;
  headers?: Record<string, string>;
}

async function send<T>(method: string, path: string, query: Query | undefined, body: unknown, authenticate: boolean, own?: OwnCredentials): Promise<T> {
  // No token (a session that ended, maybe signed in again in another tab) or one about to expire: renew it first.
  if (authenticate && sessionSector && (!accessToken || expiresSoon(accessToken))) await refreshOnce();
  const headers: Record<string, string> = { Accept: 'application/json', ...own?.headers };
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
    if (authenticate && token && response.status === 401 && (error.reason === 'TOKEN_EXPIRED' || error.reason === 'TOKEN_INVALID') && sessionSector) {
      if (await refreshOnce()) return send<T>(method, path, query, body, authenticate);
    }
    // The session ended under the page: reported (the page offers a new sign-in), the request fails where it was made.
    if (authenticate && token && response.status === 401 && token === accessToken && (error.reason === 'SESSION_REVOKED' || error.reason === 'TOKEN_EXPIRED')) sessionEnded();
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
