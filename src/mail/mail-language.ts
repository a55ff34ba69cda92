import { isShippedLanguage, Language, matchLanguage } from '../common/languages';
import type { SectorSettingsEntity } from '../settings/sector-settings.entity';
import type { TemplateSet } from './mail-templates';
import type { BuiltInKind as MessageKind } from './texts/mail-copy';

/** The settings (wire names) holding a kind's templates, for kinds a sector may write its own of. */
interface SectorTemplateNames {
  subject: string;
  text: string;
  html: string;
  sms?: string;
}

const SECTOR_TEMPLATES: Partial<Record<MessageKind, SectorTemplateNames>> = {
  invite: { subject: 'InviteEmailSubject', text: 'InviteEmailBodyTemplate', html: 'InviteEmailBodyHTMLTemplate' },
  code: { subject: 'OTPEmailSubject', text: 'OTPEmailBodyTemplate', html: 'OTPEmailBodyHTMLTemplate', sms: 'OTPSMSTemplate' },
  passwordReset: { subject: 'PasswordResetEmailSubject', text: 'PasswordResetEmailBodyTemplate', html: 'PasswordResetEmailBodyHTMLTemplate' },
};

/** The top-level template settings (those of the sector's DefaultLanguage), by wire name. */
function topLevelTemplates(s: SectorSettingsEntity): Record<string, string> {
  return {
    InviteEmailSubject: s.inviteEmailSubject,
    InviteEmailBodyTemplate: s.inviteEmailBodyTemplate,
    InviteEmailBodyHTMLTemplate: s.inviteEmailBodyHtmlTemplate,
    OTPEmailSubject: s.otpEmailSubject,
    OTPEmailBodyTemplate: s.otpEmailBodyTemplate,
    OTPEmailBodyHTMLTemplate: s.otpEmailBodyHtmlTemplate,
    OTPSMSTemplate: s.otpSmsTemplate,
    PasswordResetEmailSubject: s.passwordResetEmailSubject,
    PasswordResetEmailBodyTemplate: s.passwordResetEmailBodyTemplate,
    PasswordResetEmailBodyHTMLTemplate: s.passwordResetEmailBodyHtmlTemplate,
  };
}

/** The sector's default language (a stored value no longer shipped counts as English). */
export function defaultLanguageOf(s: SectorSettingsEntity): Language {
  return isShippedLanguage(s.defaultLanguage) ? s.defaultLanguage : 'en';
}

/** The language a mail to someone of `locale` goes out in: theirs when the service ships it, else the sector's default. */
export function mailLanguage(locale: string | undefined, settings: SectorSettingsEntity): Language {
  return matchLanguage(locale) ?? defaultLanguageOf(settings);
}

/** The sector's own templates of `kind` in `language` ('' where it has none): the top-level ones for its default language, else LocalizedTemplates. */
export function sectorTemplates(settings: SectorSettingsEntity, kind: MessageKind, language: Language): TemplateSet & { sms: string } {
  const names = SECTOR_TEMPLATES[kind];
  if (!names) return { subject: '', text: '', html: '', sms: '' };
  const source = language === defaultLanguageOf(settings) ? topLevelTemplates(settings) : (settings.localizedTemplates?.[language] ?? {});
  const read = (name: string | undefined) => (name ? (source[name] ?? '') : '');
  return { subject: read(names.subject), text: read(names.text), html: read(names.html), sms: read(names.sms) };
}

/** Whether messages of `kind` can go out as an SMS (one-time codes). */
export function hasSmsTemplate(kind: MessageKind): boolean {
  return SECTOR_TEMPLATES[kind]?.sms !== undefined;
}
