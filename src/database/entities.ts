import { ApiTokenEntity } from '../api-token/api-token.entity';
import { AuthTransactionEntity } from '../auth/engine/auth-transaction.entity';
import { OtpRegistrationEntity } from '../otp/otp-registration.entity';
import { SigningKeyEntity } from '../tenancy/signing-key.entity';
import { OutboxEntity } from '../mail/outbox.entity';
import { SectorDirectoryEntity } from '../tenancy/sector-directory.entity';
import { SectorEntity } from '../sector/sector.entity';
import { SectorSettingsEntity } from '../settings/sector-settings.entity';
import { TenantEntity } from '../tenancy/tenant.entity';
import { UserEntity } from '../user/user.entity';
import { WebAuthnCredentialEntity } from '../webauthn/webauthn-credential.entity';
import { SessionEntity } from '../session/session.entity';
import { LinkedIdentityEntity } from '../oauth/linked-identity.entity';
import { OAuthProviderEntity } from '../oauth/oauth-provider.entity';

/** Tables of every tenant database or schema (and of the platform tenant in the main database). */
export const TENANT_ENTITIES = [SectorEntity, SectorSettingsEntity, UserEntity, AuthTransactionEntity, ApiTokenEntity, OutboxEntity, OtpRegistrationEntity, WebAuthnCredentialEntity, SessionEntity, OAuthProviderEntity, LinkedIdentityEntity];

/** Tables of the main database's directory. */
export const MAIN_ENTITIES = [TenantEntity, SigningKeyEntity, SectorDirectoryEntity];
