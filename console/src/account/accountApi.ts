/** The account page's calls: the signed-in user's own resources (docs/api.md, Users, OTP registrations, Passkeys, Sessions, Social login, OpenID Provider grants). */
import { api, seg } from '../api/client';
import type { Schemas, UserProfile, UserProfileInput } from '../api/types';
import { i18n } from '../i18n';

export type { Address, UserProfile } from '../api/types';

export type OtpRegistration = Schemas['OtpRegistrationResponse'];
export type FactorType = OtpRegistration['type'];
export type NewOtpRegistration = Schemas['CreateOtpRegistrationResponse'];
/** A passkey; `flagged`: possibly cloned, refused at sign-in until an admin clears it. */
export type Passkey = Schemas['WebAuthnCredentialResponse'];
export type Identity = Schemas['LinkedIdentityResponse'];
export type Session = Schemas['SessionResponse'];
/** An app the user gave access to through the OpenID Provider (a first-party app without being asked). */
export type AppGrant = Schemas['OidcGrantResponse'];

const user = (sub: string) => `/api/v1/users/${seg(sub)}`;

export const accountApi = {
  profile: (sub: string) => api.get<UserProfile>(user(sub)),
  /** A new own email waits for its link (`pendingEmail` in the answer); email and phone changes need step-up. */
  updateProfile: (sub: string, profile: UserProfileInput) => api.put<Schemas['UpdateUserResponse']>(user(sub), { profile } satisfies Schemas['UpdateUserDto']),
  /** Follows an email-change link (public): the new address becomes the user's email, verified. */
  confirmEmailChange: (token: string) => api.postPublic<Schemas['EmailChangeConfirmedResponse']>('/api/v1/email/change/confirm', { token } satisfies Schemas['LinkTokenDto']),
  sendEmailVerification: (sub: string) => api.post<Schemas['EmailVerificationSentResponse']>(`${user(sub)}/email/verify`),
  changePassword: (sub: string, currentPassword: string, newPassword: string) => api.post<Schemas['UserRefResponse']>(`${user(sub)}/password`, { currentPassword, newPassword } satisfies Schemas['ChangePasswordDto']),
  factors: (sub: string) => api.get<Schemas['ListOtpRegistrationsResponse']>(`${user(sub)}/otp-registrations`),
  addFactor: (sub: string, type: FactorType, destination?: string) => api.post<NewOtpRegistration>(`${user(sub)}/otp-registrations`, { type, destination } satisfies Schemas['CreateOtpRegistrationDto']),
  verifyFactor: (sub: string, id: string, code: string) => api.post<Schemas['OtpRegistrationIdResponse']>(`${user(sub)}/otp-registrations/${seg(id)}/verify`, { code } satisfies Schemas['VerifyOtpRegistrationDto']),
  deleteFactor: (sub: string, id: string) => api.del<Schemas['OtpRegistrationIdResponse']>(`${user(sub)}/otp-registrations/${seg(id)}`),
  passkeys: (sub: string) => api.get<Schemas['ListWebAuthnCredentialsResponse']>(`${user(sub)}/webauthn-credentials`),
  renamePasskey: (sub: string, id: string, keyName: string) => api.patch<Passkey>(`${user(sub)}/webauthn-credentials/${seg(id)}`, { keyName } satisfies Schemas['RenameWebAuthnCredentialDto']),
  deletePasskey: (sub: string, id: string) => api.del<Schemas['WebAuthnCredentialIdResponse']>(`${user(sub)}/webauthn-credentials/${seg(id)}`),
  identities: (sub: string) => api.get<Schemas['ListLinkedIdentitiesResponse']>(`${user(sub)}/identities`),
  unlink: (sub: string, id: string) => api.del<Schemas['LinkedIdentityIdResponse']>(`${user(sub)}/identities/${seg(id)}`),
  /** Starts linking a provider (step-up); the answer's verifier stays in this tab for the return. */
  startLink: (sub: string, provider: string, redirectURI: string) =>
    api.post<Schemas['OAuthInitiateResponse']>(`${user(sub)}/identities/${seg(provider)}/link`, { redirectURI } satisfies Schemas['LinkIdentityDto']),
  /** A link flow's outcome: the return's code with the flow's verifier (public; no token is ever answered). */
  collectLink: (code: string, verifier: string) => api.postPublic<Schemas['OAuthLinkResultResponse']>('/api/v1/oauth/token', { code, verifier } satisfies Schemas['OAuthTokenDto']),
  sessions: (sub: string) => api.get<Schemas['ListSessionsResponse']>(`${user(sub)}/sessions`),
  revokeSession: (sub: string, id: string) => api.del<Schemas['RevokeSessionResponse']>(`${user(sub)}/sessions/${seg(id)}`),
  appGrants: (sub: string) => api.get<Schemas['ListOidcGrantsResponse']>(`${user(sub)}/oidc/grants`),
  /** Revokes an app's access: its tokens stop at once; a third-party app asks for consent again (404 OIDC_GRANT_NOT_FOUND when nothing is granted). */
  revokeAppGrant: (sub: string, clientID: string) => api.del<Schemas['RevokeOidcGrantResponse']>(`${user(sub)}/oidc/grants/${seg(clientID)}`),
  reauthenticate: (sub: string, currentPassword: string) => api.post<Schemas['ReauthenticateResponse']>(`${user(sub)}/reauthenticate`, { currentPassword } satisfies Schemas['ReauthenticateDto']),
};

/** The day of an ISO date-time, in the page's language (as the API sent it when it is not one). */
export function day(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString(i18n.language);
}

/** Unix seconds (int64 string) in words, in the page's language; "0" is never. */
export function when(unix: string): string {
  const n = Number(unix);
  if (!Number.isFinite(n) || n <= 0) return i18n.t('common:never');
  return new Date(n * 1000).toLocaleString(i18n.language);
}
