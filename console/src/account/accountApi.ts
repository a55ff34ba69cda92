/** The account page's calls: the signed-in user's own resources (docs/api.md, Users, OTP registrations, Passkeys, Sessions, Social login). */
import { api, seg } from '../api/client';
import type { Address, UserProfile } from '../api/types';

export type { Address, UserProfile } from '../api/types';

export type FactorType = 'email' | 'sms' | 'totp';

export interface OtpRegistration {
  registrationID: string;
  type: FactorType;
  destination: string;
  verified: boolean;
}

export interface NewOtpRegistration {
  registrationID: string;
  type: FactorType;
  secret: string;
  otpauthURL: string;
}

export interface Passkey {
  id: string;
  keyName: string;
  createdAt: string;
  lastUsedAt: string;
  transports: string[];
  backedUp: boolean;
  aaguid: string;
  cloneWarning: boolean;
  /** Flagged as possibly cloned: refused at sign-in until an admin clears it. */
  flagged: boolean;
  flaggedAt: string;
}

export interface Identity {
  id: string;
  provider: string;
  issuer: string;
  subject: string;
  email: string;
  createdAt: string;
  lastUsedAt: string;
}

export interface Session {
  id: string;
  sectorID: string;
  clientIP: string;
  userAgent: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  current: boolean;
}

const user = (sub: string) => `/api/v1/users/${seg(sub)}`;

export const accountApi = {
  profile: (sub: string) => api.get<UserProfile>(user(sub)),
  /** A new own email waits for its link (`pendingEmail` in the answer); email and phone changes need step-up. */
  updateProfile: (sub: string, profile: Partial<Omit<UserProfile, 'address'>> & { address?: Partial<Address> }) =>
    api.put<{ sub: string; username: string; sectorID: string; pendingEmail?: string }>(user(sub), { profile }),
  /** Follows an email-change link (public): the new address becomes the user's email, verified. */
  confirmEmailChange: (token: string) => api.postPublic<{ sub: string; email: string; emailVerified: boolean }>('/api/v1/email/change/confirm', { token }),
  sendEmailVerification: (sub: string) => api.post<{ status: string }>(`${user(sub)}/email/verify`),
  changePassword: (sub: string, currentPassword: string, newPassword: string) => api.post(`${user(sub)}/password`, { currentPassword, newPassword }),
  factors: (sub: string) => api.get<{ registrations: OtpRegistration[] }>(`${user(sub)}/otp-registrations`),
  addFactor: (sub: string, type: FactorType, destination?: string) => api.post<NewOtpRegistration>(`${user(sub)}/otp-registrations`, { type, destination }),
  verifyFactor: (sub: string, id: string, code: string) => api.post(`${user(sub)}/otp-registrations/${seg(id)}/verify`, { code }),
  deleteFactor: (sub: string, id: string) => api.del(`${user(sub)}/otp-registrations/${seg(id)}`),
  passkeys: (sub: string) => api.get<{ credentials: Passkey[] }>(`${user(sub)}/webauthn-credentials`),
  renamePasskey: (sub: string, id: string, keyName: string) => api.patch<Passkey>(`${user(sub)}/webauthn-credentials/${seg(id)}`, { keyName }),
  deletePasskey: (sub: string, id: string) => api.del(`${user(sub)}/webauthn-credentials/${seg(id)}`),
  identities: (sub: string) => api.get<{ identities: Identity[] }>(`${user(sub)}/identities`),
  unlink: (sub: string, id: string) => api.del(`${user(sub)}/identities/${seg(id)}`),
  /** Starts linking a provider (step-up); the answer's verifier stays in this tab for the return. */
  startLink: (sub: string, provider: string, redirectURI: string) =>
    api.post<{ authURL: string; transactionID: string; verifier: string }>(`${user(sub)}/identities/${seg(provider)}/link`, { redirectURI }),
  /** A link flow's outcome: the return's code with the flow's verifier (public; no token is ever answered). */
  collectLink: (code: string, verifier: string) => api.postPublic<{ linked: boolean; identity: Identity }>('/api/v1/oauth/token', { code, verifier }),
  sessions: (sub: string) => api.get<{ sessions: Session[] }>(`${user(sub)}/sessions`),
  revokeSession: (sub: string, id: string) => api.del(`${user(sub)}/sessions/${seg(id)}`),
  reauthenticate: (sub: string, currentPassword: string) => api.post<{ token: string }>(`${user(sub)}/reauthenticate`, { currentPassword }),
};

/** Unix seconds (int64 string) in words; "0" is never. */
export function when(unix: string, never = 'never'): string {
  const n = Number(unix);
  if (!Number.isFinite(n) || n <= 0) return never;
  return new Date(n * 1000).toLocaleString();
}
