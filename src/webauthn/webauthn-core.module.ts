import { Module } from '@nestjs/common';
import { SectorModule } from '../sector/sector.module';
import { SettingsModule } from '../settings/settings.module';
import { RelyingParties } from './relying-parties';
import { WebAuthnCredentialRepository } from './webauthn-credential.repository';

/**
 * The passkey credentials and the sectors' relying parties: the part of passkeys
 * that needs no sign-in engine. The passkey strategy and the endpoints are in
 * WebAuthnModule, which builds on the engine.
 */
@Module({
  imports: [SectorModule, SettingsModule],
  providers: [WebAuthnCredentialRepository, RelyingParties],
  exports: [WebAuthnCredentialRepository, RelyingParties],
})
export class WebAuthnCoreModule {}
