import { SHIPPED_LANGUAGES } from '../../common/languages';
import { SectorSettingsEntity } from '../../settings/sector-settings.entity';
import { renderMail, renderSms } from '../mail-templates';
import { mailLanguage, sectorTemplates } from '../mail-language';
import { builtInMail, inLanguage, MAIL_TEXTS } from '.';

/** The variables a template names, sorted (`{{duration expiresInMinutes "minute"}}` names expiresInMinutes). */
function variables(template: string): string[] {
  const names = new Set<string>();
  for (const [, inner] of template.matchAll(/\{\{[#/]?([^}]+)\}\}/g)) {
    for (const word of inner.trim().split(/\s+/)) if (/^[a-zA-Z]+$/.test(word) && !['if', 'duration', 'plural'].includes(word)) names.add(word);
  }
  return [...names].sort();
}

const settings = (over: Partial<SectorSettingsEntity> = {}) =>
  Object.assign(new SectorSettingsEntity(), { defaultLanguage: 'en', localizedTemplates: {}, passwordResetEmailSubject: '', passwordResetEmailBodyTemplate: '', passwordResetEmailBodyHtmlTemplate: '' }, over);

describe('built-in mail texts', () => {
  it('exist for exactly the shipped languages', () => {
    expect(Object.keys(MAIL_TEXTS).sort()).toEqual([...SHIPPED_LANGUAGES].sort());
  });

  it.each(SHIPPED_LANGUAGES.filter((l) => l !== 'en'))('%s has every mail, with the same variables as English', (language) => {
    for (const kind of Object.keys(MAIL_TEXTS.en.mails) as Array<keyof typeof MAIL_TEXTS.en.mails>) {
      const [mine, english] = [builtInMail(language, kind), builtInMail('en', kind)];
      for (const part of ['subject', 'text', 'html'] as const) expect({ kind, part, vars: variables(mine[part]) }).toEqual({ kind, part, vars: variables(english[part]) });
    }
    expect(variables(MAIL_TEXTS[language].codeSms)).toEqual(variables(MAIL_TEXTS.en.codeSms));
    expect(Object.keys(MAIL_TEXTS[language].words).sort()).toEqual(Object.keys(MAIL_TEXTS.en.words).sort());
  });

  it('writes durations in the mail’s language, singular included', () => {
    const reset = (language: string, expiresInMinutes: number) => renderMail({ subject: '', text: '', html: '' }, builtInMail(language as 'en', 'passwordReset'), { language, expiresInMinutes, brandName: 'Acme' }).text;
    expect(reset('en', 15)).toContain('expires in 15 minutes.');
    expect(reset('en', 1)).toContain('expires in 1 minute.');
    expect(reset('de', 15)).toContain('15 Minuten gültig');
    expect(reset('de', 1)).toContain('1 Minute gültig');
    expect(reset('fr', 15)).toContain('expire dans 15 minutes.');
    expect(renderSms('', MAIL_TEXTS.de.codeSms, { language: 'de', code: '123456', brandName: 'Acme', expiresInMinutes: 10 })).toBe(
      '123456 ist Ihr Bestätigungscode für Acme. Er ist 10 Minuten gültig.',
    );
  });

  it('puts the logo, the colour and the support address in the HTML only when the sector has them', () => {
    const plain = renderMail({ subject: '', text: '', html: '' }, builtInMail('en', 'magicLink'), { brandName: 'Acme', link: 'https://x.test/l', primaryColor: '#1f5fbf', buttonTextColor: '#ffffff' });
    expect(plain.html).not.toContain('<img');
    expect(plain.html).not.toContain('mailto:');
    expect(plain.html).toContain('background: #1f5fbf; color: #ffffff');
    const branded = renderMail({ subject: '', text: '', html: '' }, builtInMail('en', 'magicLink'), {
      brandName: 'Acme',
      logoURL: 'https://id.test/api/v1/branding/s/logo/v1',
      primaryColor: '#0b6e4f',
      buttonTextColor: '#ffffff',
      supportEmail: 'help@acme.test',
    });
    expect(branded.html).toContain('<img src="https://id.test/api/v1/branding/s/logo/v1" alt="Acme" height="48">');
    expect(branded.html).toContain('<a href="mailto:help@acme.test">help@acme.test</a>');
    expect(branded.text).toContain('Questions? Write to help@acme.test');
  });

  it('translates the values callers name in English', () => {
    expect(inLanguage('de', 'email address and phone number')).toBe('E-Mail-Adresse und Telefonnummer');
    expect(inLanguage('fr', 'passkey')).toBe('clé d’accès');
    expect(inLanguage('en', 'authenticator app')).toBe('authenticator app');
  });
});

describe('the language and templates of a mail', () => {
  it('is the recipient’s when shipped, else the sector’s default', () => {
    const s = settings({ defaultLanguage: 'fr' });
    expect([mailLanguage('de-AT', s), mailLanguage('en', s), mailLanguage('ja', s), mailLanguage('', s), mailLanguage(undefined, s)]).toEqual(['de', 'en', 'fr', 'fr', 'fr']);
  });

  it('takes the top-level templates for the default language and LocalizedTemplates for the others', () => {
    const s = settings({ defaultLanguage: 'de', passwordResetEmailSubject: 'Passwort', localizedTemplates: { en: { PasswordResetEmailSubject: 'Password' } } });
    expect(sectorTemplates(s, 'passwordReset', 'de').subject).toBe('Passwort');
    expect(sectorTemplates(s, 'passwordReset', 'en').subject).toBe('Password');
    expect(sectorTemplates(s, 'passwordReset', 'fr')).toEqual({ subject: '', text: '', html: '', sms: '' });
    expect(sectorTemplates(s, 'magicLink', 'de')).toEqual({ subject: '', text: '', html: '', sms: '' });
  });
});
