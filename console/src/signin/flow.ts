/**
 * The sign-in API (docs/api.md, "Sign-in flows"): every step answers an
 * authentication result; `SUCCESS` carries the tokens, anything else names the
 * next step. All calls are public (no access token) and carry the sector.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { startAuthentication, startRegistration, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { api, ApiError } from '../api/client';
import { i18n } from '../i18n';
import { loadedAddress } from '../auth/sectorAddress';
import { pageSignInOptions, type SignInOptions } from '../auth/signInOptions';
import type { Schemas } from '../api/types';
import type { Area } from '../auth/AuthContext';

/** What every sign-in step answers: `SUCCESS` with the tokens, or the next step. */
export type AuthResult = Schemas['AuthResultResponse'];

const SOCIAL_PROVIDERS = ['google', 'github', 'apple', 'oidc'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];

/**
 * The sector the page signs in to: the one its address names (`/t/{tenant}/[{sector}/]`,
 * see auth/sectorAddress), else `?sector=<sectorID>`; neither means the platform
 * tenant's default sector, as in the API. What the page offers — social buttons,
 * sign-in links, signup — comes from the sector's public sign-in options; while
 * they load (or if they cannot be read) only what every sector has is shown. Under
 * `/t/` the pages wait for them (SectorAddressGate): the sector's id comes from there.
 */
export function useSignInContext() {
  const [params] = useSearchParams();
  const sector = loadedAddress ? '' : params.get('sector') ?? '';
  const next = params.get('next') ?? '';
  const options = useSignInOptions(sector);
  const data = options.data;
  return useMemo(() => ({
    sectorID: (loadedAddress ? data?.sectorID : sector) || undefined,
    // The name the sector's pages show: its BrandDisplayName, which the service falls back to its name.
    sectorName: data?.branding?.displayName || data?.sectorName || '',
    providers: (data?.providers ?? []).filter((p): p is SocialProvider => (SOCIAL_PROVIDERS as readonly string[]).includes(p)),
    selfSignUpAllowed: data?.selfSignUpAllowed ?? false,
    magicLinkLoginEnabled: data?.magicLinkLoginEnabled ?? false,
    branding: data?.branding,
    defaultLanguage: data?.defaultLanguage,
    optionsError: options.error,
    next,
  }), [sector, data, options.error, next]);
}

/**
 * The sign-in options of the page's sector: by its address under `/t/`, else by id (empty: the platform's).
 * The session restore reads the same cache entry (auth/signInOptions), so a page load asks once.
 */
export function useSignInOptions(sectorID: string) {
  return useQuery({
    ...pageSignInOptions(sectorID),
    // A failed answer stays until asked again (the gate's "Try again"): every page frame reads this query,
    // and fetching again whenever one mounts would loop between the error page and the loading state.
    retryOnMount: false,
  });
}

/**
 * The sector a login name like `ada@acme` (`acme`: a tenant's slug, its default
 * sector) or `ada@acme/shop` (`shop`: a sector of it by slug) names, or
 * undefined: the sign-in page's identifier-first step. Only the address's form
 * and the public list of tenants decide (no account is looked up, so the answer
 * says nothing of whether an account exists); an email address (its domain has
 * a dot) never matches.
 */
export async function organizationOf(login: string): Promise<{ username: string; options: SignInOptions } | undefined> {
  const match = /^(.+)@([a-z0-9][a-z0-9-]{0,61}[a-z0-9])(?:\/([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?))?$/.exec(login.trim());
  if (!match) return undefined;
  try {
    return { username: match[1], options: await api.getPublic<SignInOptions>('/api/v1/sign-in-options', { tenant: match[2], sector: match[3] }) };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) return undefined;
    throw error;
  }
}

/** Where a completed sign-in goes: the `next` page if it is inside the area, else the area's home. */
export function afterSignIn(area: Area, next: string): string {
  if (next.startsWith(`/${area}`) && !next.startsWith(`/${area}/sign-in`) && !next.startsWith('//')) return next;
  return `/${area}`;
}

const withSector = (sectorID: string | undefined, body: Record<string, unknown>) => (sectorID ? { ...body, sectorID } : body);

export const signInApi = {
  password: (sectorID: string | undefined, body: Omit<Schemas['PasswordLoginDto'], 'sectorID'>) =>
    api.postPublic<AuthResult>('/api/v1/login/password', withSector(sectorID, body)),
  otpBegin: (sectorID: string | undefined, body: Omit<Schemas['OtpBeginDto'], 'sectorID'>) =>
    api.postPublic<Schemas['OtpBeginResponse']>('/api/v1/login/otp/begin', withSector(sectorID, body)),
  otp: (sectorID: string | undefined, body: { transactionID: string; code: string }) =>
    api.postPublic<AuthResult>('/api/v1/login/otp', withSector(sectorID, { transactionID: body.transactionID, password: body.code })),
  enrollBegin: (sectorID: string | undefined, body: Omit<Schemas['SignupMfaBeginDto'], 'sectorID'>) =>
    api.postPublic<AuthResult>('/api/v1/signup/mfa/begin', withSector(sectorID, body)),
  enrollVerify: (sectorID: string | undefined, body: Omit<Schemas['SignupMfaVerifyDto'], 'sectorID'>) =>
    api.postPublic<Schemas['SignupMfaVerifyResponse']>('/api/v1/signup/mfa/verify', withSector(sectorID, body)),
  signup: (sectorID: string | undefined, body: Omit<Schemas['SignupDto'], 'sectorID'>) =>
    api.postPublic<AuthResult>('/api/v1/signup', withSector(sectorID, body)),
  forgot: (sectorID: string | undefined, body: Omit<Schemas['ForgotPasswordDto'], 'sectorID'>) =>
    api.postPublic<Schemas['LinkSentResponse']>('/api/v1/password/forgot', withSector(sectorID, body)),
  reset: (body: Schemas['ResetPasswordDto']) => api.postPublic<AuthResult>('/api/v1/password/reset', body),
  acceptInvite: (body: Schemas['AcceptInviteDto']) => api.postPublic<AuthResult>('/api/v1/invites/accept', body),
  magicBegin: (sectorID: string | undefined, body: Omit<Schemas['MagicLinkBeginDto'], 'sectorID'>) =>
    api.postPublic<Schemas['LinkSentResponse']>('/api/v1/login/magic-link/begin', withSector(sectorID, body)),
  magicFinish: (body: Schemas['LinkTokenDto']) => api.postPublic<AuthResult>('/api/v1/login/magic-link/finish', body),
  verifyEmail: (body: Schemas['LinkTokenDto']) => api.postPublic<Schemas['EmailVerifiedResponse']>('/api/v1/email/verify', body),
  socialInitiate: (sectorID: string | undefined, provider: SocialProvider, redirectURI: string) =>
    api.postPublic<SocialStart>(`/api/v1/oauth/${provider}/initiate`, withSector(sectorID, { redirectURI })),
  /** The result of a social flow this browser started: the return's code with the flow's stored verifier. */
  socialResult: (code: string, verifier: string) => api.postPublic<AuthResult>('/api/v1/oauth/token', { code, verifier } satisfies Schemas['OAuthTokenDto']),
};

/** What initiate (and linking from the account page) answers: `verifier` is shown once and stays in this tab. */
export type SocialStart = Schemas['OAuthInitiateResponse'];

/** A social flow this tab started: kept in sessionStorage under its own key until its return is handled. */
export interface StoredSocialFlow {
  purpose: 'sign-in' | 'link';
  transactionID: string;
  verifier: string;
}

/** The query parameter of the return URL that names the flow in this tab's storage (never a secret). */
export const FLOW_PARAM = 'flow';
const FLOW_KEY = (id: string) => `iam.social-flow.${id}`;

/**
 * Starts remembering a social flow: a fresh local id names it in the return URL
 * (`?flow=<id>`), and its verifier and transactionID wait in sessionStorage — this
 * tab only — for the return. Answers the return URL to send to initiate and the
 * function that stores what initiate answered.
 */
export function newSocialFlow(returnTo: URL): { redirectURI: string; remember: (purpose: StoredSocialFlow['purpose'], start: SocialStart) => void } {
  const id = crypto.randomUUID();
  const back = new URL(returnTo);
  back.searchParams.set(FLOW_PARAM, id);
  return {
    redirectURI: back.toString(),
    remember: (purpose, start) => sessionStorage.setItem(FLOW_KEY(id), JSON.stringify({ purpose, transactionID: start.transactionID, verifier: start.verifier } satisfies StoredSocialFlow)),
  };
}

/**
 * Takes the flow a return names, once (it is removed): undefined when this tab
 * did not start it, or started a flow of another purpose — such a return is
 * refused and nothing is signed in or linked.
 */
export function takeSocialFlow(id: string | null, purpose: StoredSocialFlow['purpose']): StoredSocialFlow | undefined {
  if (!id) return undefined;
  let stored: string | null = null;
  try {
    stored = sessionStorage.getItem(FLOW_KEY(id));
    sessionStorage.removeItem(FLOW_KEY(id));
  } catch {
    return undefined;
  }
  if (!stored) return undefined;
  try {
    const flow = JSON.parse(stored) as StoredSocialFlow;
    return flow.purpose === purpose && typeof flow.verifier === 'string' && typeof flow.transactionID === 'string' ? flow : undefined;
  } catch {
    return undefined;
  }
}

/** The refusal of a return this tab did not start (or of an old `?transactionID=` link). */
export function foreignReturn(): Error {
  return new Error(i18n.t('signin:foreignReturn'));
}

interface WebAuthnBegin {
  credentialAssertion: { publicKey: PublicKeyCredentialRequestOptionsJSON & { timout?: number } };
  transactionID: string;
}

/** The request options as the browser wants them: without the interface's misspelled `timout`. */
function requestOptions(begin: WebAuthnBegin): PublicKeyCredentialRequestOptionsJSON {
  const { timout: _timout, ...publicKey } = begin.credentialAssertion.publicKey;
  return publicKey;
}

/**
 * A passkey sign-in: begin (with a username, usernameless, or for a transaction
 * after a password), the browser's ceremony, finish. `autofill` waits for the
 * user to pick a passkey in the username field's autofill (conditional mediation).
 */
export async function passkeySignIn(sectorID: string | undefined, body: { username?: string; transactionID?: string }, options: { autofill?: boolean } = {}): Promise<AuthResult> {
  const begin = await api.postPublic<WebAuthnBegin>('/api/v1/login/webauthn/begin', withSector(sectorID, body));
  const assertion = await startAuthentication({ optionsJSON: requestOptions(begin), useBrowserAutofill: options.autofill === true });
  return api.postPublic<AuthResult>('/api/v1/login/webauthn/finish', withSector(sectorID, { ...assertion, transactionID: begin.transactionID }));
}

interface RegistrationBegin {
  options: PublicKeyCredentialCreationOptionsJSON & { rp: { icon?: string }; user: { icon?: string } };
  transactionID: string;
}

/** Registers a passkey for the signed-in user (the access token is required). */
export async function registerPasskey(keyName: string): Promise<void> {
  const begin = await api.post<RegistrationBegin>('/api/v1/webauthn/registration/begin', { keyName });
  // The service answers zero values; browsers refuse an empty attachment or icon.
  const options = JSON.parse(JSON.stringify(begin.options)) as RegistrationBegin['options'];
  if (options.authenticatorSelection && !options.authenticatorSelection.authenticatorAttachment) delete options.authenticatorSelection.authenticatorAttachment;
  delete options.rp.icon;
  delete options.user.icon;
  const credential = await startRegistration({ optionsJSON: options });
  await api.post('/api/v1/webauthn/registration/finish', { ...credential, transactionID: begin.transactionID });
}

/** Whether the browser offers passkeys in the username field's autofill. */
export async function autofillAvailable(): Promise<boolean> {
  try {
    return typeof PublicKeyCredential !== 'undefined' && typeof PublicKeyCredential.isConditionalMediationAvailable === 'function' && (await PublicKeyCredential.isConditionalMediationAvailable());
  } catch {
    return false;
  }
}

/** A WebAuthn ceremony the user cancelled or that timed out (not worth an alarming message). */
export function isCeremonyCancelled(error: unknown): boolean {
  const name = (error as { name?: string; cause?: { name?: string } } | null)?.name;
  const cause = (error as { cause?: { name?: string } } | null)?.cause?.name;
  return name === 'NotAllowedError' || cause === 'NotAllowedError' || name === 'AbortError' || cause === 'AbortError' || (error as { code?: string })?.code === 'ERROR_CEREMONY_ABORTED';
}
