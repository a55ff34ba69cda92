/**
 * Mails in the recipient's language, as a real SMTP server receives them: the user's
 * `locale` when the service ships it, else the sector's DefaultLanguage; the sector's own
 * templates of that language where it has them (LocalizedTemplates, or the top-level
 * ones for its default language), else the built-in text; durations written out in that
 * language; the sector's name, colour and support address in the HTML.
 */
import { createSector, createUser, provisionTenant, ProvisionedTenant, uniqueSlug } from './support/factories';
import { FAST_WORKER, MAIL_FROM, ReceivedMail, startSmtpServer, TestSmtpServer } from './support/smtp';
import { startTestApp, TestApp } from './support/test-app';

describe('mails in the recipient’s language', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let a: ProvisionedTenant;
  let sector: string;

  const admin = () => ({ Authorization: `Bearer ${a.adminToken}` });
  const putSettings = async (body: object) => {
    const res = await t.http().put(`/api/v1/sectors/${sector}/settings`).set(admin()).send(body);
    expect(res.status).toBe(200);
  };
  /** A new user of the sector with `locale`, and the password-reset mail they are then sent. */
  async function resetMailOf(locale: string): Promise<ReceivedMail> {
    const email = `${uniqueSlug('u')}@example.test`;
    await createUser(t, a.adminToken, sector, { email, password: 'a-long-password-1', profile: { locale } });
    expect((await t.http().post('/api/v1/password/forgot').send({ sectorID: sector, email })).status).toBe(200);
    return smtp.waitForMail((m) => m.to.includes(email), 15_000);
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER, THROTTLE_SEND_ADDRESS_FREE: '100000' } });
    a = await provisionTenant(t);
    sector = await createSector(t, a.adminToken);
    await putSettings({ BrandDisplayName: 'Acme Shop', PasswordResetTimeoutMinutes: '30' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('German for a user whose locale is "de", durations in German', async () => {
    const mail = await resetMailOf('de');
    expect(mail.subject).toBe('Ihr Passwort für Acme Shop zurücksetzen');
    expect(mail.text).toContain('Jemand hat angefordert, das Passwort Ihres Kontos bei Acme Shop zurückzusetzen.');
    expect(mail.text).toContain('Der Link ist 30 Minuten gültig.');
    expect(mail.html).toContain('<html lang="de">');
    expect(mail.html).toContain('Neues Passwort wählen</a>');
  });

  it('French for "fr-CA", English for "en-GB"', async () => {
    const fr = await resetMailOf('fr-CA');
    expect(fr.subject).toBe('Réinitialisez votre mot de passe Acme Shop');
    expect(fr.text).toContain('Le lien expire dans 30 minutes.');
    const en = await resetMailOf('en-GB');
    expect(en.subject).toBe('Reset your Acme Shop password');
    expect(en.text).toContain('The link expires in 30 minutes.');
  });

  it('the sector’s DefaultLanguage for a language not shipped or none', async () => {
    await putSettings({ DefaultLanguage: 'fr' });
    expect((await resetMailOf('ja')).subject).toBe('Réinitialisez votre mot de passe Acme Shop');
    expect((await resetMailOf('')).subject).toBe('Réinitialisez votre mot de passe Acme Shop');
    await putSettings({ DefaultLanguage: 'en' });
  });

  it('the sector’s own template of the recipient’s language: LocalizedTemplates, or the top-level one for its default language', async () => {
    await putSettings({
      PasswordResetEmailSubject: 'Acme: reset for {{email}}',
      LocalizedTemplates: { de: { PasswordResetEmailSubject: 'Acme: Passwort für {{email}}' } },
    });
    const de = await resetMailOf('de');
    expect(de.subject).toBe(`Acme: Passwort für ${de.to[0]}`);
    // The German template sets only the subject: the body is the built-in German one.
    expect(de.text).toContain('Der Link ist 30 Minuten gültig.');
    const en = await resetMailOf('en');
    expect(en.subject).toBe(`Acme: reset for ${en.to[0]}`);
    // No French template: the built-in French text, not the English one.
    expect((await resetMailOf('fr')).subject).toBe('Réinitialisez votre mot de passe Acme Shop');
    await putSettings({ PasswordResetEmailSubject: '', LocalizedTemplates: { de: {} } });
  });

  it('the HTML carries the brand name, its colour on the button and the support address', async () => {
    await putSettings({ BrandPrimaryColor: '#0b6e4f', SupportEmail: 'help@acme.example' });
    const mail = await resetMailOf('en');
    expect(mail.html).toContain('background: #0b6e4f; color: #ffffff');
    expect(mail.html).toContain('<a href="mailto:help@acme.example">help@acme.example</a>');
    expect(mail.text).toContain('Questions? Write to help@acme.example');
  });

  it('an invitation in German too', async () => {
    const email = `${uniqueSlug('inv')}@example.test`;
    const sub = await createUser(t, a.adminToken, sector, { email, profile: { locale: 'de-DE' } });
    expect((await t.http().post(`/api/v1/users/${sub}/invite`).set(admin())).status).toBe(200);
    const invite = await smtp.waitForMail((m) => m.to.includes(email) && m.subject.startsWith('Ihre Einladung'), 15_000);
    expect(invite.subject).toBe('Ihre Einladung zu Acme Shop');
    expect(invite.text).toContain('Der Link ist 168 Stunden gültig.');
  });

  it('the preview renders a language on request', async () => {
    const res = await t.http().post(`/api/v1/sectors/${sector}/templates/preview`).set(admin()).send({ kind: 'code', language: 'de' });
    expect(res.status).toBe(200);
    expect(res.body.subject).toBe('Ihr Bestätigungscode für Acme Shop');
    expect(res.body.sms).toMatch(/^123456 ist Ihr Bestätigungscode für Acme Shop\. Er ist \d+ Minuten gültig\.$/);
    const bad = await t.http().post(`/api/v1/sectors/${sector}/templates/preview`).set(admin()).send({ kind: 'code', language: 'ja' });
    expect(bad.status).toBe(400);
  });
});
