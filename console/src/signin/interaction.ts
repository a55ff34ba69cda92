/**
 * The OpenID Provider's sign-in requests ("interactions", src/oidc): an app sends the
 * browser to `{issuer}/auth`, the provider sends it on to
 * `/api/v1/oidc/interactions/{id}?interaction={id}&sector={sectorID}`, which the
 * service answers with this app; the page signs the user in with the sector's
 * sign-in API and hands the access token to `complete`, which answers where the
 * browser goes next (back to the provider, then to the app with its code). A
 * third-party app needs the user's consent first (OIDC_CONSENT_REQUIRED): the page
 * asks, then completes again with `consent: true`, or declines the request (`deny`),
 * which sends the browser back to the app with `error=access_denied`.
 */
import { api, ApiError, seg, type SessionTokens } from '../api/client';
import type { Schemas } from '../api/types';
import { i18n } from '../i18n';

/** GET /api/v1/oidc/interactions/{id}: a pending sign-in request, the app that asks (404 NOT_FOUND once unknown, expired or completed). */
export type InteractionDetails = Schemas['OidcInteractionResponse'];

/** POST /api/v1/oidc/interactions/{id}/complete: where the browser goes next (absolute). */
type InteractionCompleted = Schemas['CompleteOidcInteractionResponse'];

const path = (interactionID: string) => `/api/v1/oidc/interactions/${seg(interactionID)}`;

export const interactionApi = {
  /** The request's details (public: the page has no session yet). */
  details: (interactionID: string) => api.getPublic<InteractionDetails>(path(interactionID)),
  /**
   * Completes the request as the user of `token` (a fresh sign-in's access token), with this
   * browser's cookies: the provider's interaction cookie proves this browser started it.
   */
  complete: (interactionID: string, token: string, consent = false) =>
    api.postWithToken<InteractionCompleted>(token, `${path(interactionID)}/complete`, (consent ? { consent: true } : {}) satisfies Schemas['CompleteOidcInteractionDto']),
  /**
   * Declines the request (public: no sign-in is needed), with this browser's cookies: only the browser
   * that started it may decline it. The answer sends the browser to the app with `error=access_denied`.
   */
  deny: (interactionID: string) => api.postPublicWithCookies<InteractionCompleted>(`${path(interactionID)}/deny`),
  /** Ends the session of a sign-in the request did not accept (its tokens are dropped). */
  endSession: (token: string) => api.postWithToken<unknown>(token, '/api/v1/logout'),
};

/** The app asks for what the user has not granted it yet (or for consent again, `prompt=consent`): the page asks the user. */
export function needsConsent(error: unknown): boolean {
  return error instanceof ApiError && error.reason === 'OIDC_CONSENT_REQUIRED';
}

/** The request is gone (unknown, expired or completed elsewhere). */
export function requestEnded(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/** Where the browser goes next, from the service's answer; an answer without an http(s) address is an error in words. */
export function nextAddress(answer: InteractionCompleted): string {
  const target = httpURL(answer.redirectTo);
  if (!target) throw new Error(i18n.t('signin:request.noAddress'));
  return target;
}

/** An http(s) URL, or undefined (a registered URI is shown as a link only then). */
export function httpURL(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** The scopes whose meaning the page says in words (`signin:scope.*`; 'openid' is who the user is). */
const WORDED_SCOPES = new Set(['openid', 'profile', 'email', 'phone', 'address', 'offline_access']);

const scopeWord = (scope: string): string | undefined => (WORDED_SCOPES.has(scope) ? i18n.t(`signin:scope.${scope}`) : undefined);

/** The requested scopes in words, in the order asked, unknown ones left out. */
export function scopeWords(scopes: readonly string[]): string[] {
  return [...new Set(scopes)].flatMap((scope) => scopeWord(scope) ?? []);
}

/** Granted scopes in words, in order; an unknown scope keeps its own name (what was granted is never hidden). */
export function scopeWordsOrNames(scopes: readonly string[]): string[] {
  return [...new Set(scopes)].map((scope) => scopeWord(scope) ?? scope);
}

/** What a mailed sign-in link's page hands the request's page in the history entry (see interactionHandOver). */
export interface HandOver {
  signedIn?: SessionTokens;
}

/**
 * Where the page of a mailed sign-in link that continues request `interactionID`
 * sends its finished sign-in, and how: an in-app navigation whose history entry
 * carries the tokens (memory of this tab only; the request's page takes them out at once).
 */
export function interactionHandOver(interactionID: string, sectorID: string, tokens: SessionTokens): { to: string; state: HandOver } {
  const query = new URLSearchParams({ interaction: interactionID, ...(sectorID ? { sector: sectorID } : {}) });
  return { to: `${path(interactionID)}?${query.toString()}`, state: { signedIn: tokens } };
}
