/** Response and request shapes of the admin routes (docs/api.md; the OpenAPI document is the reference). */

export interface Sector {
  sectorID: string;
  name: string;
  domain: string;
  isDefault: boolean;
  allowedOrigins: string[];
  slug: string;
}

export interface Paged {
  totalCount: number;
  totalPages: number;
  currentPage: number;
}

export interface ListSectorsResponse extends Paged {
  sectors: Sector[];
}

export interface ProvisionTenantResponse {
  tenantID: string;
  slug: string;
  kid: string;
  sector: Sector;
}

export interface TenantStats {
  userCount: number;
  pendingInviteCount: number;
  adminCount: number;
  apiTokenCount: number;
  mfaRequired: boolean;
  selfSignupAllowed: boolean;
  webauthnConfigured: boolean;
}

export interface TenantListItem {
  tenantID: string;
  slug: string;
  name: string;
  kid: string;
  isPlatform: boolean;
  rootSectorID: string;
  sectorCount: number;
  subSectorCount: number;
  createdAt: string;
}

export interface ListTenantsResponse {
  tenants: TenantListItem[];
  totalCount: number;
  totalPages: number;
  currentPage: number;
}

export interface GetTenantResponse {
  tenant: { tenantID: string; slug: string; kid: string; isPlatform: boolean; rootSectorID: string; sectorCount: number; subSectorCount: number };
  sectors: Array<{ sectorID: string; slug: string; name: string; isDefault: boolean }>;
  reachable: boolean;
  reachError: string;
  stats?: TenantStats;
}

export interface SectorSettings {
  sectorID: string;
  MFARequired: boolean;
  SelfSignUpAllowed: boolean;
  AllowUserCreationForNonAdmins: boolean;
  AllowUserReadForNonAdmins: boolean;
  OTPEmailSubject: string;
  OTPEmailBodyTemplate: string;
  OTPEmailBodyHTMLTemplate: string;
  OTPSMSTemplate: string;
  InviteEmailSubject: string;
  InviteEmailBodyTemplate: string;
  InviteEmailBodyHTMLTemplate: string;
  InviteExpirationHours: string;
  AccessTokenDuration: string;
  PasswordResetEmailSubject: string;
  PasswordResetEmailBodyTemplate: string;
  PasswordResetEmailBodyHTMLTemplate: string;
  PasswordResetTimeoutMinutes: string;
  WebAuthnRPID: string;
  WebAuthnRPDisplayName: string;
  WebAuthnRPOrigins: string[];
  MagicLinkURL: string;
  WebAuthnDebug: boolean;
  MagicLinkLoginEnabled: boolean;
  SessionLifetimeSeconds: string;
  SessionIdleTimeoutSeconds: string;
  AuditRetentionDays: string;
}

export type InviteStatus = '' | 'pending' | 'active' | 'expired';

export interface UserListItem {
  sub: string;
  email: string;
  name: string;
  emailVerified: boolean;
  phoneVerified: boolean;
  createdAt: string;
  updatedAt: string;
  isAdmin: boolean;
  inviteStatus: InviteStatus;
}

export interface ListUsersResponse extends Paged {
  users: UserListItem[];
}

export type { Address, UserProfile } from '../api/types';

export interface ApiToken {
  id: string;
  name: string;
  sectorID: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string;
}

export interface CreateApiTokenResponse {
  token: string;
  apiToken: ApiToken;
}

export type ProviderName = 'google' | 'github' | 'apple' | 'oidc';

export interface OAuthProviderView {
  enabled: boolean;
  clientID: string;
  clientSecretSet: boolean;
  teamID: string;
  keyID: string;
  privateKeyPEMSet: boolean;
  redirectURI: string;
  issuerURL: string;
  appID: string;
}

export interface OAuthProviderInput {
  enabled?: boolean;
  clientID?: string;
  clientSecret?: string;
  teamID?: string;
  keyID?: string;
  privateKeyPEM?: string;
  redirectURI?: string;
  issuerURL?: string;
  appID?: string;
}
