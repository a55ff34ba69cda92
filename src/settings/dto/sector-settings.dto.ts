import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsEmail, IsIn, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { SHIPPED_LANGUAGES } from '../../common/languages';
import { IsHostnameOrEmpty, IsInt64InRange, IsOriginList, QueryBoolean, QueryStringArray, ToInt64String } from '../../common/validation/validation';
import { IsHandlebarsTemplate, IsHttpUrlOrEmpty, IsLocalizedTemplates } from '../settings.validation';

export const SUBJECT_MAX = 998;
export const TEMPLATE_MAX = 100_000;
export const SMS_MAX = 1_600;

/** The template settings (wire names) and their longest value: what `LocalizedTemplates` may hold per language. */
const TEMPLATE_SETTINGS: Readonly<Record<string, number>> = {
  OTPEmailSubject: SUBJECT_MAX,
  OTPEmailBodyTemplate: TEMPLATE_MAX,
  OTPEmailBodyHTMLTemplate: TEMPLATE_MAX,
  OTPSMSTemplate: SMS_MAX,
  InviteEmailSubject: SUBJECT_MAX,
  InviteEmailBodyTemplate: TEMPLATE_MAX,
  InviteEmailBodyHTMLTemplate: TEMPLATE_MAX,
  PasswordResetEmailSubject: SUBJECT_MAX,
  PasswordResetEmailBodyTemplate: TEMPLATE_MAX,
  PasswordResetEmailBodyHTMLTemplate: TEMPLATE_MAX,
};

const COLOR_MESSAGE = 'must be a colour as #rrggbb, or empty';
const COLOR_PATTERN = /^(#[0-9a-fA-F]{6})?$/;
/** Colours are stored lower case. */
const LowerCase = () => Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : value));
const colorDescription = (what: string) => `${what} as \`#rrggbb\`; empty means the console theme's own. Refused when the page would miss WCAG AA contrast (4.5:1) with it.`;

/** Body of PUT /api/v1/sectors/{sectorID}/settings: every field optional; absent fields keep their value. */
export class UpdateSectorSettingsDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() MFARequired?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() SelfSignUpAllowed?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() AllowUserCreationForNonAdmins?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() AllowUserReadForNonAdmins?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(SUBJECT_MAX) @IsHandlebarsTemplate() OTPEmailSubject?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEMPLATE_MAX) @IsHandlebarsTemplate() OTPEmailBodyTemplate?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEMPLATE_MAX) @IsHandlebarsTemplate() OTPEmailBodyHTMLTemplate?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(SMS_MAX) @IsHandlebarsTemplate() OTPSMSTemplate?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(SUBJECT_MAX) @IsHandlebarsTemplate() InviteEmailSubject?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEMPLATE_MAX) @IsHandlebarsTemplate() InviteEmailBodyTemplate?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEMPLATE_MAX) @IsHandlebarsTemplate() InviteEmailBodyHTMLTemplate?: string;
  @ApiPropertyOptional({ type: 'string', format: 'int64', description: 'Hours, 1 to 8760; "0" means the default 168.' })
  @IsOptional() @ToInt64String() @IsInt64InRange(0, 8760) InviteExpirationHours?: string;
  @ApiPropertyOptional({ type: 'string', format: 'int64', description: 'Seconds, 1 to 31536000; "0" means the default 3600.' })
  @IsOptional() @ToInt64String() @IsInt64InRange(0, 31_536_000) AccessTokenDuration?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(SUBJECT_MAX) @IsHandlebarsTemplate() PasswordResetEmailSubject?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEMPLATE_MAX) @IsHandlebarsTemplate() PasswordResetEmailBodyTemplate?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEMPLATE_MAX) @IsHandlebarsTemplate() PasswordResetEmailBodyHTMLTemplate?: string;
  @ApiPropertyOptional({ type: 'string', format: 'int64', description: 'Minutes, 1 to 1440; "0" means the default 15.' })
  @IsOptional() @ToInt64String() @IsInt64InRange(0, 1440) PasswordResetTimeoutMinutes?: string;
  @ApiPropertyOptional({ description: 'Relying-party ID (a host name); empty means the sector domain.' })
  @IsOptional() @IsString() @IsHostnameOrEmpty() WebAuthnRPID?: string;
  @ApiPropertyOptional({ description: 'Empty means the sector name.' }) @IsOptional() @IsString() @MaxLength(200) WebAuthnRPDisplayName?: string;
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @IsOriginList() WebAuthnRPOrigins?: string[];
  @ApiPropertyOptional({ description: 'Base URL for magic links and invites (http or https), or empty.' })
  @IsOptional() @IsString() @IsHttpUrlOrEmpty() MagicLinkURL?: string;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() WebAuthnDebug?: boolean;
  @ApiPropertyOptional({ description: 'Allows magic-link sign-in (a single-use link mailed to the user, a first factor).' })
  @IsOptional() @IsBoolean() MagicLinkLoginEnabled?: boolean;
  @ApiPropertyOptional({ type: 'string', format: 'int64', description: 'Seconds a session (and its refresh tokens) lives at most, 1 to 31536000; "0" means the default 2592000 (30 days).' })
  @IsOptional() @ToInt64String() @IsInt64InRange(0, 31_536_000) SessionLifetimeSeconds?: string;
  @ApiPropertyOptional({ type: 'string', format: 'int64', description: 'Seconds a session may go without a refresh, 1 to 31536000; "0" means the default 604800 (7 days).' })
  @IsOptional() @ToInt64String() @IsInt64InRange(0, 31_536_000) SessionIdleTimeoutSeconds?: string;
  @ApiPropertyOptional({ type: 'string', format: 'int64', description: 'Days audit events of the sector are kept, 1 to 3650; "0" means the default 365.' })
  @IsOptional() @ToInt64String() @IsInt64InRange(0, 3650) AuditRetentionDays?: string;
  @ApiPropertyOptional({ description: 'Mail an invitation to each user a directory creates over SCIM with an email (default false: nothing is mailed).' })
  @IsOptional()
  @IsBoolean()
  SCIMSendInvitations?: boolean;
  @ApiPropertyOptional({ description: "The name the sector's public pages and mails show; empty means the sector's name." })
  @IsOptional() @IsString() @MaxLength(100) BrandDisplayName?: string;
  @ApiPropertyOptional({ description: colorDescription('Links, buttons and focus rings in light mode') })
  @IsOptional() @IsString() @Matches(COLOR_PATTERN, { message: COLOR_MESSAGE }) @LowerCase() BrandPrimaryColor?: string;
  @ApiPropertyOptional({ description: colorDescription('The page background in light mode') })
  @IsOptional() @IsString() @Matches(COLOR_PATTERN, { message: COLOR_MESSAGE }) @LowerCase() BrandBackgroundColor?: string;
  @ApiPropertyOptional({ description: colorDescription('Links, buttons and focus rings in dark mode') })
  @IsOptional() @IsString() @Matches(COLOR_PATTERN, { message: COLOR_MESSAGE }) @LowerCase() BrandPrimaryColorDark?: string;
  @ApiPropertyOptional({ description: colorDescription('The page background in dark mode') })
  @IsOptional() @IsString() @Matches(COLOR_PATTERN, { message: COLOR_MESSAGE }) @LowerCase() BrandBackgroundColorDark?: string;
  @ApiPropertyOptional({ description: 'Terms of service, linked from the public pages (http or https), or empty.' })
  @IsOptional() @IsString() @IsHttpUrlOrEmpty() TermsURL?: string;
  @ApiPropertyOptional({ description: 'Privacy policy, linked from the public pages (http or https), or empty.' })
  @IsOptional() @IsString() @IsHttpUrlOrEmpty() PrivacyURL?: string;
  @ApiPropertyOptional({ description: 'An address users may write to for help, shown on the public pages and in mails, or empty.' })
  @IsOptional() @IsString() @MaxLength(320) @ValidateIf((_o, v) => v !== '') @IsEmail({}, { message: 'must be an email address, or empty' }) SupportEmail?: string;
  @ApiPropertyOptional({ enum: SHIPPED_LANGUAGES, description: "The language of the sector's pages and mails for users whose own is not known or not shipped." })
  @IsOptional() @IsString() @IsIn(SHIPPED_LANGUAGES, { message: `must be one of ${SHIPPED_LANGUAGES.join(', ')}` }) DefaultLanguage?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
    example: { de: { PasswordResetEmailSubject: 'Ihr Passwort zurücksetzen' } },
    description:
      'Mail templates in other languages than DefaultLanguage (whose templates are the top-level settings): language → template setting → template. A language given replaces that language\'s templates; `{}` removes them; languages not given keep theirs.',
  })
  @IsOptional() @IsObject() @IsLocalizedTemplates(TEMPLATE_SETTINGS) LocalizedTemplates?: Record<string, Record<string, string>>;
  // Output only: ignored when sent, so that a settings body read can be written back whole.
  @ApiPropertyOptional({ readOnly: true, description: 'Output only (ignored when sent): upload the logo with PUT /api/v1/sectors/{sectorID}/branding/logo.' })
  @IsOptional() @IsString() BrandLogoURL?: string;
  @ApiPropertyOptional({ readOnly: true, description: 'Output only (ignored when sent): upload the favicon with PUT /api/v1/sectors/{sectorID}/branding/favicon.' })
  @IsOptional() @IsString() BrandFaviconURL?: string;
}

export class SectorSettingsResponse {
  @ApiProperty() sectorID: string;
  @ApiProperty() MFARequired: boolean;
  @ApiProperty() SelfSignUpAllowed: boolean;
  @ApiProperty() AllowUserCreationForNonAdmins: boolean;
  @ApiProperty() AllowUserReadForNonAdmins: boolean;
  @ApiProperty() OTPEmailSubject: string;
  @ApiProperty() OTPEmailBodyTemplate: string;
  @ApiProperty() OTPEmailBodyHTMLTemplate: string;
  @ApiProperty() OTPSMSTemplate: string;
  @ApiProperty() InviteEmailSubject: string;
  @ApiProperty() InviteEmailBodyTemplate: string;
  @ApiProperty() InviteEmailBodyHTMLTemplate: string;
  @ApiProperty({ type: 'string', format: 'int64', example: '168' }) InviteExpirationHours: string;
  @ApiProperty({ type: 'string', format: 'int64', example: '3600' }) AccessTokenDuration: string;
  @ApiProperty() PasswordResetEmailSubject: string;
  @ApiProperty() PasswordResetEmailBodyTemplate: string;
  @ApiProperty() PasswordResetEmailBodyHTMLTemplate: string;
  @ApiProperty({ type: 'string', format: 'int64', example: '15' }) PasswordResetTimeoutMinutes: string;
  @ApiProperty() WebAuthnRPID: string;
  @ApiProperty() WebAuthnRPDisplayName: string;
  @ApiProperty({ type: [String] }) WebAuthnRPOrigins: string[];
  @ApiProperty() MagicLinkURL: string;
  @ApiProperty() WebAuthnDebug: boolean;
  @ApiProperty() MagicLinkLoginEnabled: boolean;
  @ApiProperty({ type: 'string', format: 'int64', example: '2592000' }) SessionLifetimeSeconds: string;
  @ApiProperty({ type: 'string', format: 'int64', example: '604800' }) SessionIdleTimeoutSeconds: string;
  @ApiProperty({ type: 'string', format: 'int64', example: '365' }) AuditRetentionDays: string;
  @ApiProperty({ description: 'Mail an invitation to each user a directory creates over SCIM with an email.' }) SCIMSendInvitations: boolean;
  @ApiProperty() BrandDisplayName: string;
  @ApiProperty({ example: '#0b6e4f' }) BrandPrimaryColor: string;
  @ApiProperty() BrandBackgroundColor: string;
  @ApiProperty() BrandPrimaryColorDark: string;
  @ApiProperty() BrandBackgroundColorDark: string;
  @ApiProperty() TermsURL: string;
  @ApiProperty() PrivacyURL: string;
  @ApiProperty() SupportEmail: string;
  @ApiProperty({ enum: SHIPPED_LANGUAGES, example: 'en' }) DefaultLanguage: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'string' } } }) LocalizedTemplates: Record<string, Record<string, string>>;
  @ApiProperty({ description: "The uploaded logo's public address (it changes with the image), or empty." }) BrandLogoURL: string;
  @ApiProperty({ description: "The uploaded favicon's public address (it changes with the image), or empty." }) BrandFaviconURL: string;
}

/** Query of GET settings: accepted for compatibility with the published interface; it does not filter. */
export class GetSectorSettingsQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() domain?: string;
  @ApiPropertyOptional() @IsOptional() @QueryBoolean() @IsBoolean() isDefault?: boolean;
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @QueryStringArray() @IsArray() @IsString({ each: true }) allowedOrigins?: string[];
  @ApiPropertyOptional() @IsOptional() @IsString() slug?: string;
}
