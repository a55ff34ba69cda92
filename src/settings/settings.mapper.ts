import { int64 } from '../common/wire/wire';
import { SectorSettingsResponse, UpdateSectorSettingsDto } from './dto/sector-settings.dto';
import { SectorSettingsEntity } from './sector-settings.entity';

/** The fields that are not one column each: the per-language templates (merged per language) and the uploaded images' addresses. */
type SpecialField = 'LocalizedTemplates' | 'BrandLogoURL' | 'BrandFaviconURL';
type WireField = Exclude<keyof UpdateSectorSettingsDto, SpecialField>;
type Column = Exclude<keyof SectorSettingsEntity, 'sectorId' | 'updatedAt' | 'localizedTemplates' | 'brandLogoVersion' | 'brandFaviconVersion'>;

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
  BrandDisplayName: 'brandDisplayName',
  BrandPrimaryColor: 'brandPrimaryColor',
  BrandBackgroundColor: 'brandBackgroundColor',
  BrandPrimaryColorDark: 'brandPrimaryColorDark',
  BrandBackgroundColorDark: 'brandBackgroundColorDark',
  TermsURL: 'termsUrl',
  PrivacyURL: 'privacyUrl',
  SupportEmail: 'supportEmail',
  DefaultLanguage: 'defaultLanguage',
};

/** The public address of a sector's uploaded image ('' when there is none); the version makes it change with the image. */
export function brandAssetUrl(publicUrl: string, sectorId: string, asset: 'logo' | 'favicon', version: string): string {
  return version ? `${publicUrl}/api/v1/branding/${encodeURIComponent(sectorId)}/${asset}/${encodeURIComponent(version)}` : '';
}

/** int64 settings whose "0" means "the default". */
const INT64_DEFAULTS: Partial<Record<WireField, string>> = {
  InviteExpirationHours: '168',
  AccessTokenDuration: '3600',
  PasswordResetTimeoutMinutes: '15',
  SessionLifetimeSeconds: '2592000',
  SessionIdleTimeoutSeconds: '604800',
  AuditRetentionDays: '365',
};

export function toSettingsResponse(s: SectorSettingsEntity, publicUrl: string): SectorSettingsResponse {
  const out: Record<string, unknown> = { sectorID: s.sectorId };
  for (const [wire, column] of Object.entries(FIELDS) as Array<[WireField, Column]>) {
    const value = s[column];
    out[wire] = wire in INT64_DEFAULTS ? int64(value as string) : Array.isArray(value) ? [...value] : value;
  }
  out.LocalizedTemplates = structuredClone(s.localizedTemplates ?? {});
  out.BrandLogoURL = brandAssetUrl(publicUrl, s.sectorId, 'logo', s.brandLogoVersion);
  out.BrandFaviconURL = brandAssetUrl(publicUrl, s.sectorId, 'favicon', s.brandFaviconVersion);
  return out as unknown as SectorSettingsResponse;
}

/** The wire names of the fields an update sets (for the audit trail: names, never values), sorted. */
export function settingsFieldsSet(dto: UpdateSectorSettingsDto): string[] {
  return [...(Object.keys(FIELDS) as WireField[]), 'LocalizedTemplates' as const].filter((wire) => dto[wire] !== undefined && dto[wire] !== null).sort();
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
