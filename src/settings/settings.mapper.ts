import { int64 } from '../common/wire/wire';
import { SectorSettingsResponse, UpdateSectorSettingsDto } from './dto/sector-settings.dto';
import { SectorSettingsEntity } from './sector-settings.entity';

type WireField = keyof UpdateSectorSettingsDto;
type Column = Exclude<keyof SectorSettingsEntity, 'sectorId' | 'updatedAt'>;

/** Wire name (PascalCase, as published) → entity property: the one table both directions use. */
const FIELDS: Record<WireField, Column> = {
  MFARequired: 'mfaRequired',
  SelfSignUpAllowed: 'selfSignUpAllowed',
  AllowUserCreationForNonAdmins: 'allowUserCreationForNonAdmins',
  AllowUserReadForNonAdmins: 'allowUserReadForNonAdmins',
  OTPEmailSubject: 'otpEmailSubject',
  OTPEmailBodyTemplate: 'otpEmailBodyTemplate',
  OTPEmailBodyHTMLTemplate: 'otpEmailBodyHtmlTemplate',
  OTPSMSTemplate: 'otpSmsTemplate',
  InviteEmailSubject: 'inviteEmailSubject',
  InviteEmailBodyTemplate: 'inviteEmailBodyTemplate',
  InviteEmailBodyHTMLTemplate: 'inviteEmailBodyHtmlTemplate',
  InviteExpirationHours: 'inviteExpirationHours',
  AccessTokenDuration: 'accessTokenDuration',
  PasswordResetEmailSubject: 'passwordResetEmailSubject',
  PasswordResetEmailBodyTemplate: 'passwordResetEmailBodyTemplate',
  PasswordResetEmailBodyHTMLTemplate: 'passwordResetEmailBodyHtmlTemplate',
  PasswordResetTimeoutMinutes: 'passwordResetTimeoutMinutes',
  WebAuthnRPID: 'webauthnRpId',
  WebAuthnRPDisplayName: 'webauthnRpDisplayName',
  WebAuthnRPOrigins: 'webauthnRpOrigins',
  MagicLinkURL: 'magicLinkUrl',
  WebAuthnDebug: 'webauthnDebug',
  MagicLinkLoginEnabled: 'magicLinkLoginEnabled',
  SessionLifetimeSeconds: 'sessionLifetimeSeconds',
  SessionIdleTimeoutSeconds: 'sessionIdleTimeoutSeconds',
  AuditRetentionDays: 'auditRetentionDays',
  SCIMSendInvitations: 'scimSendInvitations',
};

/** int64 settings whose "0" means "the default". */
const INT64_DEFAULTS: Partial<Record<WireField, string>> = {
  InviteExpirationHours: '168',
  AccessTokenDuration: '3600',
  PasswordResetTimeoutMinutes: '15',
  SessionLifetimeSeconds: '2592000',
  SessionIdleTimeoutSeconds: '604800',
  AuditRetentionDays: '365',
};

export function toSettingsResponse(s: SectorSettingsEntity): SectorSettingsResponse {
  const out: Record<string, unknown> = { sectorID: s.sectorId };
  for (const [wire, column] of Object.entries(FIELDS) as Array<[WireField, Column]>) {
    const value = s[column];
    out[wire] = wire in INT64_DEFAULTS ? int64(value as string) : Array.isArray(value) ? [...value] : value;
  }
  return out as unknown as SectorSettingsResponse;
}

/** The wire names of the fields an update sets (for the audit trail: names, never values), sorted. */
export function settingsFieldsSet(dto: UpdateSectorSettingsDto): string[] {
  return (Object.keys(FIELDS) as WireField[]).filter((wire) => dto[wire] !== undefined && dto[wire] !== null).sort();
}

/** The columns an update sets: only the fields present in the body (updates merge). */
export function toSettingsPatch(dto: UpdateSectorSettingsDto): Partial<SectorSettingsEntity> {
  const patch: Record<string, unknown> = {};
  for (const [wire, column] of Object.entries(FIELDS) as Array<[WireField, Column]>) {
    const value = dto[wire] as unknown;
    // null is "unset" (as in proto3 JSON), like an absent field: it keeps the stored value.
    if (value === undefined || value === null) continue;
    patch[column] = wire in INT64_DEFAULTS && value === '0' ? INT64_DEFAULTS[wire] : value;
  }
  return patch as Partial<SectorSettingsEntity>;
}
