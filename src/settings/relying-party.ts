import { relyingPartyViolations } from './settings.validation';

/** The WebAuthn relying party of one sector (docs/adr/0015-passkeys.md). */
export interface RelyingParty {
  /** RP ID: WebAuthnRPID, else the sector's domain. */
  id: string;
  /** Display name: WebAuthnRPDisplayName, else the sector's name. */
  name: string;
  /** Exact origins allowed to use it: WebAuthnRPOrigins, else the sector's allowedOrigins. */
  origins: string[];
  /** WebAuthnDebug: verification failures carry diagnostics in ErrorInfo metadata. */
  debug: boolean;
}

/** What of a sector the relying party falls back to. */
export interface RelyingPartySector {
  name: string;
  domain: string;
  allowedOrigins: readonly string[];
}

/** What of a sector's settings names the relying party. */
export interface RelyingPartySettings {
  webauthnRpId: string;
  webauthnRpDisplayName: string;
  webauthnRpOrigins: readonly string[];
  webauthnDebug: boolean;
}

/** The sector's relying party: each setting when set, else what the sector itself says. */
export function resolveRelyingParty(sector: RelyingPartySector, settings: RelyingPartySettings): RelyingParty {
  return {
    id: (settings.webauthnRpId || sector.domain || '').toLowerCase(),
    name: settings.webauthnRpDisplayName || sector.name,
    origins: [...(settings.webauthnRpOrigins.length > 0 ? settings.webauthnRpOrigins : sector.allowedOrigins)],
    debug: settings.webauthnDebug,
  };
}

/** Does the relying party work in a browser (an RP ID, at least one origin, every origin https or localhost and on the RP ID)? */
export function isUsableRelyingParty(rp: Pick<RelyingParty, 'id' | 'origins'>): boolean {
  return relyingPartyViolations({ rpId: rp.id, origins: rp.origins }).length === 0;
}

/**
 * Whether the sector's settings configure passkeys themselves (an RP ID or RP
 * origins set). Only then does a settings update have to leave a working relying
 * party; a sector whose own domain and allowed origins do not make one simply has
 * no passkeys (WEBAUTHN_NOT_CONFIGURED).
 */
export function settingsConfigureRelyingParty(settings: Pick<RelyingPartySettings, 'webauthnRpId' | 'webauthnRpOrigins'>): boolean {
  return settings.webauthnRpId !== '' || settings.webauthnRpOrigins.length > 0;
}
