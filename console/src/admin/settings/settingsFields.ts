import type { SectorSettings } from '../types';

/** Every writable SectorSettings field, grouped as the form shows them (docs/api.md, Settings). */

export type SettingKey = Exclude<keyof SectorSettings, 'sectorID'>;

export type FieldSpec =
  | { key: SettingKey; kind: 'boolean'; label: string; help?: string }
  | { key: SettingKey; kind: 'int64'; label: string; help: string; min: number; max: number; unit: string }
  | { key: SettingKey; kind: 'text'; label: string; help?: string; maxLength?: number; type?: 'text' | 'url' | 'email' }
  | { key: SettingKey; kind: 'color'; label: string; help: string }
  | { key: SettingKey; kind: 'choice'; label: string; help: string; options: Array<{ value: string; label: string }> }
  | { key: SettingKey; kind: 'origins'; label: string; help: string };

export interface FieldGroup {
  id: string;
  title: string;
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
    title: 'Sign-in and access',
    fields: [
      { key: 'MFARequired', kind: 'boolean', label: 'Require a second factor (MFA)' },
      { key: 'SelfSignUpAllowed', kind: 'boolean', label: 'Allow self sign-up' },
      { key: 'MagicLinkLoginEnabled', kind: 'boolean', label: 'Allow magic-link sign-in', help: 'A single-use link mailed to the user, used as a first factor.' },
      { key: 'AllowUserCreationForNonAdmins', kind: 'boolean', label: 'Members may create users' },
      { key: 'AllowUserReadForNonAdmins', kind: 'boolean', label: 'Members may read users' },
      { key: 'SCIMSendInvitations', kind: 'boolean', label: 'Invite users a directory provisions', help: 'Mail an invitation to each user your directory (Entra ID, Okta) creates over SCIM with an email. Off: nothing is mailed.' },
      { key: 'MagicLinkURL', kind: 'text', type: 'url', label: 'Link base URL', help: 'Base of invitation, reset, magic-link and verification links: https on the service’s address or one of the sector’s allowed origins (http only for localhost in development). Empty: the service’s own pages.' },
    ],
  },
  {
    id: 'durations',
    title: 'Lifetimes',
    fields: [
      { key: 'AccessTokenDuration', kind: 'int64', label: 'Access token lifetime', unit: 'seconds', min: 1, max: 31_536_000, help: '1 to 31,536,000 seconds. 0 restores the default (3600).' },
      { key: 'SessionLifetimeSeconds', kind: 'int64', label: 'Session lifetime', unit: 'seconds', min: 1, max: 31_536_000, help: '1 to 31,536,000 seconds. 0 restores the default (2,592,000: 30 days).' },
      { key: 'SessionIdleTimeoutSeconds', kind: 'int64', label: 'Session idle timeout', unit: 'seconds', min: 1, max: 31_536_000, help: '1 to 31,536,000 seconds. 0 restores the default (604,800: 7 days).' },
      { key: 'InviteExpirationHours', kind: 'int64', label: 'Invitation validity', unit: 'hours', min: 1, max: 8760, help: '1 to 8,760 hours. 0 restores the default (168).' },
      { key: 'PasswordResetTimeoutMinutes', kind: 'int64', label: 'Reset and magic-link validity', unit: 'minutes', min: 1, max: 1440, help: '1 to 1,440 minutes. 0 restores the default (15).' },
      { key: 'AuditRetentionDays', kind: 'int64', label: 'Audit retention', unit: 'days', min: 1, max: 3650, help: '1 to 3,650 days. 0 restores the default (365).' },
    ],
  },
  {
    id: 'look',
    title: 'Look and language',
    fields: [
      { key: 'BrandDisplayName', kind: 'text', label: 'Display name', maxLength: 100, help: 'The name the sector’s sign-in and account pages and its mails show. Empty: the sector’s name.' },
      { key: 'BrandPrimaryColor', kind: 'color', label: 'Primary colour (light mode)', help: 'Links, buttons and focus rings, as #rrggbb. Empty: the built-in blue. Refused when the pages would miss WCAG AA contrast.' },
      { key: 'BrandBackgroundColor', kind: 'color', label: 'Background colour (light mode)', help: 'The page behind the cards, as #rrggbb. Empty: the built-in one.' },
      { key: 'BrandPrimaryColorDark', kind: 'color', label: 'Primary colour (dark mode)', help: 'As #rrggbb, for visitors whose system is in dark mode. Empty: the built-in one.' },
      { key: 'BrandBackgroundColorDark', kind: 'color', label: 'Background colour (dark mode)', help: 'As #rrggbb. Empty: the built-in one.' },
      { key: 'TermsURL', kind: 'text', type: 'url', label: 'Terms of service link', help: 'Shown at the foot of the public pages. Empty: none.' },
      { key: 'PrivacyURL', kind: 'text', type: 'url', label: 'Privacy policy link', help: 'Shown at the foot of the public pages. Empty: none.' },
      { key: 'SupportEmail', kind: 'text', type: 'email', label: 'Support address', help: 'Shown on the public pages and in mails. Empty: none.' },
      {
        key: 'DefaultLanguage',
        kind: 'choice',
        label: 'Default language',
        help: 'The language of pages and mails for users whose own language is not known or not offered. The templates below without a language of their own are this language’s.',
        options: [...LANGUAGE_OPTIONS],
      },
    ],
  },
  {
    id: 'passkeys',
    title: 'Passkeys (WebAuthn relying party)',
    fields: [
      { key: 'WebAuthnRPID', kind: 'text', label: 'Relying party ID', help: 'A lowercase host name, e.g. login.example.com. Empty: the sector’s domain.' },
      { key: 'WebAuthnRPDisplayName', kind: 'text', label: 'Relying party display name', maxLength: 200, help: 'Up to 200 characters. Empty: the sector’s name.' },
      { key: 'WebAuthnRPOrigins', kind: 'origins', label: 'Allowed passkey origins', help: 'One origin per line, scheme://host[:port], no path; up to 100.' },
      { key: 'WebAuthnDebug', kind: 'boolean', label: 'Explain passkey refusals', help: 'Adds the library’s reason to WEBAUTHN_RESPONSE_INVALID errors. For troubleshooting only.' },
    ],
  },
];

type TemplateKind = 'otp' | 'invite' | 'passwordReset';

export interface TemplateGroup {
  kind: TemplateKind;
  title: string;
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
    title: 'One-time code message',
    subject: 'OTPEmailSubject',
    text: 'OTPEmailBodyTemplate',
    html: 'OTPEmailBodyHTMLTemplate',
    sms: 'OTPSMSTemplate',
    variables: ['code', 'email', 'username', 'sectorName', 'brandName', 'expiresInMinutes'],
  },
  {
    kind: 'invite',
    title: 'Invitation mail',
    subject: 'InviteEmailSubject',
    text: 'InviteEmailBodyTemplate',
    html: 'InviteEmailBodyHTMLTemplate',
    variables: ['link', 'email', 'username', 'sectorName', 'brandName', 'expiresInHours'],
  },
  {
    kind: 'passwordReset',
    title: 'Password-reset mail',
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
