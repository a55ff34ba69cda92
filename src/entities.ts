import type { EntityLists } from './database/data-source-options';
import { ApiTokenEntity } from './api-token/api-token.entity';
import { AuthTransactionEntity } from './auth/engine/auth-transaction.entity';
import { OtpRegistrationEntity } from './otp/otp-registration.entity';
import { SigningKeyEntity } from './tenancy/signing-key.entity';
import { OutboxEntity } from './mail/outbox.entity';
import { SectorDirectoryEntity } from './tenancy/sector-directory.entity';
import { SectorEntity } from './sector/sector.entity';
import { SectorSettingsEntity } from './settings/sector-settings.entity';
import { TenantEntity } from './tenancy/tenant.entity';
import { UserEntity } from './user/user.entity';
import { WebAuthnCredentialEntity } from './webauthn/webauthn-credential.entity';
import { SessionEntity } from './session/session.entity';
import { LinkedIdentityEntity } from './oauth/linked-identity.entity';
import { OAuthProviderEntity } from './oauth/oauth-provider.entity';
import { SectorAssetEntity } from './branding/sector-asset.entity';

/**
 * The tables the ORM maps, listed at the composition root from the feature modules'
 * entities (the database layer below them takes the lists as an argument).
 */
export const ENTITIES: EntityLists = {
  /** Every tenant database or schema (and the platform tenant in the main database). */
  tenant: [SectorEntity, SectorSettingsEntity, UserEntity, AuthTransactionEntity, ApiTokenEntity, OutboxEntity, OtpRegistrationEntity, WebAuthnCredentialEntity, SessionEntity, OAuthProviderEntity, LinkedIdentityEntity, SectorAssetEntity],
  /** The main database's directory. */
  main: [TenantEntity, SigningKeyEntity, SectorDirectoryEntity],
};
