import type { SectorSettings } from '../types';

/** Every writable SectorSettings field, grouped as the form shows them (docs/api.md, Settings). */

export type SettingKey = Exclude<keyof SectorSettings, 'sectorID'>;

/**
 * A setting's input. Its label and help are the `settings` catalogue's `fields.<key>.label`
 * and `fields.<key>.help` (none for some); a group's title is `groups.<id>`; a unit's name `units.<unit>`.
 */
export type FieldSpec =
  | { key: SettingKey; kind: 'boolean' }
  | { key: SettingKey; kind: 'int64'; min: number; max: number; unit: 'seconds' | 'minutes' | 'hours' | 'days' }
  | { key: SettingKey; kind: 'text'; maxLength?: number; type?: 'text' | 'url' | 'email' }
  | { key: SettingKey; kind: 'color' }
  | { key: SettingKey; kind: 'choice'; options: ReadonlyArray<{ value: string; label: string }> }
  | { key: SettingKey; kind: 'origins' };

export interface FieldGroup {
  id: 'access' | 'durations' | 'look' | 'passkeys';
  fields: FieldSpec[];
}

/** The languages the service ships pages and mails in (its `SHIPPED_LANGUAGES`), each in its own name. */
export const LANGUAGE_OPTIONS = [
  { value: 'en', label: 'English' },
  { value: 'de', label: 'Deutsch' },
  { value: 'fr', label: 'Français' },
] as const;

export type LanguageCode = (typeof LANGUAGE_OPTIONS)[number]['value'];

export const GENERAL_GROUPS: FieldGroup[] = [
  {
    id: 'access',
    fields: [
      { key: 'MFARequired', kind: 'boolean' },
      { key: 'SelfSignUpAllowed', kind: 'boolean' },
      { key: 'MagicLinkLoginEnabled', kind: 'boolean' },
      { key: 'AllowUserCreationForNonAdmins', kind: 'boolean' },
      { key: 'AllowUserReadForNonAdmins', kind: 'boolean' },
      { key: 'SCIMSendInvitations', kind: 'boolean' },
      { key: 'MagicLinkURL', kind: 'text', type: 'url' },
    ],
  },
  {
    id: 'durations',
    fields: [
      { key: 'AccessTokenDuration', kind: 'int64', unit: 'seconds', min: 1, max: 31_536_000 },
      { key: 'SessionLifetimeSeconds', kind: 'int64', unit: 'seconds', min: 1, max: 31_536_000 },
      { key: 'SessionIdleTimeoutSeconds', kind: 'int64', unit: 'seconds', min: 1, max: 31_536_000 },
      { key: 'InviteExpirationHours', kind: 'int64', unit: 'hours', min: 1, max: 8760 },
      { key: 'PasswordResetTimeoutMinutes', kind: 'int64', unit: 'minutes', min: 1, max: 1440 },
      { key: 'AuditRetentionDays', kind: 'int64', unit: 'days', min: 1, max: 3650 },
    ],
  },
  {
    id: 'look',
    fields: [
      { key: 'BrandDisplayName', kind: 'text', maxLength: 100 },
      { key: 'BrandPrimaryColor', kind: 'color' },
      { key: 'BrandBackgroundColor', kind: 'color' },
      { key: 'BrandPrimaryColorDark', kind: 'color' },
      { key: 'BrandBackgroundColorDark', kind: 'color' },
      { key: 'TermsURL', kind: 'text', type: 'url' },
      { key: 'PrivacyURL', kind: 'text', type: 'url' },
      { key: 'SupportEmail', kind: 'text', type: 'email' },
      { key: 'DefaultLanguage', kind: 'choice', options: LANGUAGE_OPTIONS },
    ],
  },
  {
    id: 'passkeys',
    fields: [
      { key: 'WebAuthnRPID', kind: 'text' },
      { key: 'WebAuthnRPDisplayName', kind: 'text', maxLength: 200 },
      { key: 'WebAuthnRPOrigins', kind: 'origins' },
      { key: 'WebAuthnDebug', kind: 'boolean' },
    ],
  },
];

type TemplateKind = 'otp' | 'invite' | 'passwordReset';

/** A message's template settings; its title is the `settings` catalogue's `templates.<kind>.title`. */
export interface TemplateGroup {
  kind: TemplateKind;
  subject: SettingKey;
  text: SettingKey;
  html: SettingKey;
  sms?: SettingKey;
  /** Variables the service passes to this message (docs/api.md, Templates). */
  variables: string[];
}

export const TEMPLATE_GROUPS: TemplateGroup[] = [
  {
    kind: 'otp',
    subject: 'OTPEmailSubject',
    text: 'OTPEmailBodyTemplate',
    html: 'OTPEmailBodyHTMLTemplate',
    sms: 'OTPSMSTemplate',
    variables: ['code', 'email', 'username', 'sectorName', 'brandName', 'expiresInMinutes'],
  },
  {
    kind: 'invite',
    subject: 'InviteEmailSubject',
    text: 'InviteEmailBodyTemplate',
    html: 'InviteEmailBodyHTMLTemplate',
    variables: ['link', 'email', 'username', 'sectorName', 'brandName', 'expiresInHours'],
  },
  {
    kind: 'passwordReset',
    subject: 'PasswordResetEmailSubject',
    text: 'PasswordResetEmailBodyTemplate',
    html: 'PasswordResetEmailBodyHTMLTemplate',
    variables: ['link', 'email', 'username', 'sectorName', 'brandName', 'expiresInMinutes'],
  },
];

export const SUBJECT_MAX = 998;
export const TEMPLATE_MAX = 100_000;
export const SMS_MAX = 1_600;

/** The template settings, which `LocalizedTemplates` holds per language under the same names. */
export const TEMPLATE_KEYS: SettingKey[] = TEMPLATE_GROUPS.flatMap((g) => [g.subject, g.text, g.html, ...(g.sms ? [g.sms] : [])]);

/** Every field of the form, in order: used to map API field violations and to build the PUT body. */
export const ALL_SETTING_KEYS: SettingKey[] = [...GENERAL_GROUPS.flatMap((g) => g.fields.map((f) => f.key)), ...TEMPLATE_KEYS];
