/**
 * The OpenID Provider's sign-in requests ("interactions", src/oidc): an app sends the
 * browser to `{issuer}/auth`, the provider sends it on to
 * `/api/v1/oidc/interactions/{id}?interaction={id}&sector={sectorID}`, which the
 * service answers with this app; the page signs the user in with the sector's
 * sign-in API and hands the access token to `complete`, which answers where the
 * browser goes next (back to the provider, then to the app with its code).
 */
import { api, seg } from '../api/client';
import type { Schemas } from '../api/types';

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
  complete: (interactionID: string, token: string) => api.postWithToken<InteractionCompleted>(token, `${path(interactionID)}/complete`),
  /** Ends the session of a sign-in the request did not accept (its tokens are dropped). */
  endSession: (token: string) => api.postWithToken<unknown>(token, '/api/v1/logout'),
};

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

/** What each scope gives the app, in words ('openid' is who the user is). */
const SCOPE_WORDS: Record<string, string> = {
  openid: 'who you are (an identifier of your account)',
  profile: 'your name and profile details',
  email: 'your email address',
  phone: 'your phone number',
  address: 'your postal address',
  offline_access: 'access to these details while you are away',
};

/** The requested scopes in words, in the order asked, unknown ones left out. */
export function scopeWords(scopes: readonly string[]): string[] {
  return [...new Set(scopes)].flatMap((scope) => (SCOPE_WORDS[scope] ? [SCOPE_WORDS[scope]] : []));
}
