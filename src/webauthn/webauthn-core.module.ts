import { Module } from '@nestjs/common';
import { SectorModule } from '../sector/sector.module';
import { SettingsModule } from '../settings/settings.module';
import { RelyingParties } from './relying-parties';
import { WebAuthnCredentialRepository } from './webauthn-credential.repository';

/**
 * What sign-in needs of passkeys (the passkey strategy in src/auth lives on it):
 * the credentials and the sectors' relying parties. The endpoints are in
 * WebAuthnModule, which builds on the sign-in engine.
 */
@Module({
  imports: [SectorModule, SettingsModule],
  providers: [WebAuthnCredentialRepository, RelyingParties],
  exports: [WebAuthnCredentialRepository, RelyingParties],
})
export class WebAuthnCoreModule {}
