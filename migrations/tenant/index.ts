import { TenantCore1763700000001 } from './1763700000001-tenant-core';
import { UsersInvitesTokens1763700000002 } from './1763700000002-users-invites-tokens';
import { Outbox1763700000003 } from './1763700000003-outbox';
import { Otp1763700000004 } from './1763700000004-otp';
import { CredentialRevocation1763700000005 } from './1763700000005-credential-revocation';
import { WebAuthn1763700000006 } from './1763700000006-webauthn';
import { AccountLifecycle1763700000007 } from './1763700000007-account-lifecycle';
import { SocialLogin1763700000008 } from './1763700000008-social-login';
import { AuditEvents1763700000009 } from './1763700000009-audit-events';
import { AuthChangeNotifications1763700000010 } from './1763700000010-auth-change-notifications';
import { UserListAtScale1763700000011 } from './1763700000011-user-list-at-scale';
import { NarrowSearchDocs1763700000012 } from './1763700000012-narrow-search-docs';
import { LinkedIdentityIssuer1763700000013 } from './1763700000013-linked-identity-issuer';
import { EmailTrust1763700000014 } from './1763700000014-email-trust';
import { WebAuthnFlagged1763700000015 } from './1763700000015-webauthn-flagged';
import { AuthChangeRelay1763700000016 } from './1763700000016-auth-change-relay';
import { OidcStorage1763700000017 } from './1763700000017-oidc-storage';
import { OidcSessionOrigin1763700000018 } from './1763700000018-oidc-session-origin';
import { UserDisabled1763700000019 } from './1763700000019-user-disabled';
import { Roles1763700000020 } from './1763700000020-roles';
import { Scim1763700000021 } from './1763700000021-scim';
import { Webhooks1763700000022 } from './1763700000022-webhooks';
import { Branding1763700000023 } from './1763700000023-branding';

/** Migrations of every tenant database or schema (and of the platform tenant in the main database), in order. */
export const TENANT_MIGRATIONS = [TenantCore1763700000001, UsersInvitesTokens1763700000002, Outbox1763700000003, Otp1763700000004, CredentialRevocation1763700000005, WebAuthn1763700000006, AccountLifecycle1763700000007, SocialLogin1763700000008, AuditEvents1763700000009, AuthChangeNotifications1763700000010, UserListAtScale1763700000011, NarrowSearchDocs1763700000012, LinkedIdentityIssuer1763700000013, EmailTrust1763700000014, WebAuthnFlagged1763700000015, AuthChangeRelay1763700000016, OidcStorage1763700000017, OidcSessionOrigin1763700000018, UserDisabled1763700000019, Roles1763700000020, Scim1763700000021, Webhooks1763700000022, Branding1763700000023];

/** The name of the newest tenant migration: a tenant whose schema_version equals it is up to date. */
export const TENANT_SCHEMA_VERSION = TENANT_MIGRATIONS[TENANT_MIGRATIONS.length - 1].name;
