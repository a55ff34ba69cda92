/**
 * The console's public pages and account page in the user's language, in a real browser
 * (Debian's chromium through playwright-core) against the real service: the browser's
 * language picks the catalogue (French here), a signed-in user's profile locale wins
 * (German), a browser language without a catalogue falls back to the sector's
 * DefaultLanguage, and the language switcher's pick is remembered across a reload.
 * `<html lang>` follows. The German pages — the longest words — fit a 390 px phone
 * screen, and axe finds no serious or critical violation on the translated pages in
 * light and dark mode; the service's refusals show in the page's language (by their
 * reason); screenshots go to test-artifacts/screenshots/lang-*.png. The
 * console's settings page edits a language's own mail templates, previewed in that
 * language, a broken one refused at its field with that language shown; the admin
 * console follows the language picked at its foot (German screens, fitting 390 px).
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkAccessibleScreen, closeAll, pageWidth, requireConsoleBuild, signInToConsole, startBrowser } from './support/browser';
import { createSector, createUser, provisionTenant, ProvisionedTenant, uniqueSlug } from './support/factories';
import { png } from './support/images';
import { startAppAtOwnAddress, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');

describe('the console in the user’s language, in chromium', () => {
  let t: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let tenant: ProvisionedTenant;
  const sectorSlug = uniqueSlug('lang');
  let sector = '';
  const german = { email: 'greta@lang.example', password: 'greta-long-password-1' };
  let germanSub = '';

  /** A page whose browser speaks `locale`, `width` px wide. */
  async function openPage(locale: string, width = 1280): Promise<Page> {
    const context = await browser.newContext({ locale, viewport: { width, height: 900 }, colorScheme: 'light' });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  const signInURL = () => `${t.baseUrl}/t/${tenant.slug}/${sectorSlug}/account/sign-in`;
  const htmlLang = (page: Page) => page.locator('html').getAttribute('lang');

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    t = await startAppAtOwnAddress();
    tenant = await provisionTenant(t);
    sector = await createSector(t, tenant.adminToken, sectorSlug);
    const settings = await t.http().put(`/api/v1/sectors/${sector}/settings`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ SelfSignUpAllowed: true });
    expect(settings.status).toBe(200);
    germanSub = await createUser(t, tenant.adminToken, sector, { ...german, profile: { locale: 'de' } });
    browser = await startBrowser();
  });

  afterAll(() => closeAll([...contexts, browser], t));

  it('a French browser gets the French sign-in page', async () => {
    const page = await openPage('fr-FR');
    await page.goto(signInURL());
    await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
    await expect(page.getByLabel('Nom d’utilisateur ou e-mail').isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Mot de passe', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Se connecter', exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Mot de passe oublié ?' }).isVisible()).resolves.toBe(true);
    expect(await htmlLang(page)).toBe('fr');
    // The switcher names every language in its own words.
    const switcher = page.getByRole('combobox', { name: 'Language' });
    await expect(switcher.locator('option').allTextContents()).resolves.toEqual(['English', 'Deutsch', 'Français']);
    expect(await switcher.inputValue()).toBe('fr');
    await checkAccessibleScreen(page, 'lang-sign-in-fr', SHOTS);
    // The service's refusal in French too, by its reason.
    await page.getByLabel('Nom d’utilisateur ou e-mail').fill(german.email);
    await page.getByLabel('Mot de passe', { exact: true }).fill('not-the-password-1');
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Le nom d’utilisateur ou le mot de passe est incorrect.' }).waitFor();
  });

  it('a user whose profile locale is German gets the German account page', async () => {
    const page = await openPage('en-US');
    await page.goto(signInURL());
    await page.getByLabel('Username or email').fill(german.email);
    await page.getByLabel('Password', { exact: true }).fill(german.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Ihr Konto' }).waitFor();
    expect(await htmlLang(page)).toBe('de');
    await expect(page.getByRole('heading', { level: 2, name: 'Zwei-Schritt-Verifizierung' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Abmelden' }).first().isVisible()).resolves.toBe(true);
    await checkAccessibleScreen(page, 'lang-account-de', SHOTS);

    // At a phone's width nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageWidth(page)).toEqual({ overflow: false, wider: [] });

    // A language picked on the account page becomes the account's language too.
    await page.getByRole('combobox', { name: 'Language' }).selectOption('fr');
    await page.getByRole('heading', { level: 1, name: 'Votre compte' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Enregistrée comme langue de votre compte.' }).waitFor();
    const stored = await t.http().get(`/api/v1/users/${germanSub}`).set('Authorization', `Bearer ${tenant.adminToken}`);
    expect(stored.body.locale).toBe('fr');
  });

  it('the German sign-in and sign-up pages fit a 390 px screen', async () => {
    const page = await openPage('de-DE', 390);
    await page.goto(signInURL());
    await page.getByRole('heading', { level: 1, name: 'Anmelden' }).waitFor();
    expect(await pageWidth(page)).toEqual({ overflow: false, wider: [] });
    await page.getByRole('link', { name: 'Konto erstellen' }).click();
    await page.getByRole('heading', { level: 1, name: 'Konto erstellen' }).waitFor();
    await expect(page.getByLabel('E-Mail-Adresse').isVisible()).resolves.toBe(true);
    expect(await pageWidth(page)).toEqual({ overflow: false, wider: [] });
    await checkAccessibleScreen(page, 'lang-sign-up-de', SHOTS);
  });

  it('the switcher changes the language, and the pick is remembered after a reload', async () => {
    const page = await openPage('en-US');
    await page.goto(signInURL());
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await htmlLang(page)).toBe('en');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('de');
    await page.getByRole('heading', { level: 1, name: 'Anmelden' }).waitFor();
    expect(await htmlLang(page)).toBe('de');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Anmelden' }).waitFor();
    expect(await htmlLang(page)).toBe('de');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  });

  it('a branded sector’s French sign-in page shows its name, logo and colours, with French links', async () => {
    const brandSlug = uniqueSlug('marque');
    const branded = await createSector(t, tenant.adminToken, brandSlug);
    const admin = { Authorization: `Bearer ${tenant.adminToken}` };
    const settings = await t.http().put(`/api/v1/sectors/${branded}/settings`).set(admin).send({
      BrandDisplayName: 'Boutique Acme',
      BrandPrimaryColor: '#0b6e4f',
      BrandPrimaryColorDark: '#a8e6cf',
      TermsURL: 'https://boutique.example/cgu',
      PrivacyURL: 'https://boutique.example/confidentialite',
      SupportEmail: 'aide@boutique.example',
    });
    expect(settings.status).toBe(200);
    const logo = await t.http().put(`/api/v1/sectors/${branded}/branding/logo`).set(admin).send({ data: png(160, 40, '#0b6e4f').toString('base64') });
    expect(logo.status).toBe(200);

    const page = await openPage('fr-FR', 390);
    await page.goto(`${t.baseUrl}/t/${tenant.slug}/${brandSlug}/account/sign-in`);
    await page.getByRole('heading', { level: 1, name: 'Connexion – Boutique Acme' }).waitFor();
    await page.getByRole('banner').getByRole('img', { name: 'Boutique Acme' }).waitFor();
    await expect(page.getByRole('link', { name: 'Conditions d’utilisation' }).getAttribute('href')).resolves.toBe('https://boutique.example/cgu');
    await expect(page.getByRole('link', { name: 'Politique de confidentialité' }).getAttribute('href')).resolves.toBe('https://boutique.example/confidentialite');
    const accent = () => page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.documentElement).getPropertyValue('--accent').trim());
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await accent()).toBe('#a8e6cf');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await accent()).toBe('#0b6e4f');
    expect(await pageWidth(page)).toEqual({ overflow: false, wider: [] });
    await checkAccessibleScreen(page, 'lang-branded-sign-in-fr', SHOTS);
  });

  it('the console’s settings edit a language’s own mail templates, previewed in that language', async () => {
    const own = await createSector(t, tenant.adminToken, uniqueSlug('vorlagen'));
    const admin = { Authorization: `Bearer ${tenant.adminToken}` };
    const page = await openPage('en-GB');
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
    await page.goto(`${t.baseUrl}/console/sectors/${own}/settings`);
    const form = page.getByRole('form', { name: 'Sector settings' });
    const language = form.getByLabel('Language of the message templates');
    await language.waitFor();
    await expect(language.locator('option:checked').textContent()).resolves.toBe('English (the default language)');
    const subject = form.getByLabel('Password-reset subject');
    const previewed = (part: string) => page.getByTestId(`preview-passwordReset-${part}`);

    // German: its own subject, previewed with the German built-in body; English keeps its own.
    await language.selectOption('de');
    await expect(subject.inputValue()).resolves.toBe('');
    await subject.fill('Neues Passwort für {{brandName}}');
    await previewed('subject').filter({ hasText: /^Neues Passwort für / }).waitFor();
    await previewed('text').filter({ hasText: 'Jemand hat angefordert, das Passwort Ihres Kontos' }).waitFor();
    await form.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).first().waitFor();
    const stored = await t.http().get(`/api/v1/sectors/${own}/settings`).set(admin);
    expect(stored.body.LocalizedTemplates).toEqual({ de: { PasswordResetEmailSubject: 'Neues Passwort für {{brandName}}' } });
    expect(stored.body.PasswordResetEmailSubject).toBe('');
    await language.selectOption('en');
    await expect(subject.inputValue()).resolves.toBe('');
    await previewed('subject').filter({ hasText: /^Reset your .* password$/ }).waitFor();

    // French: a template that does not compile is refused at its field, French still picked.
    await language.selectOption('fr');
    await subject.fill('{{#if brandName}}');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.getByText(/^must be a valid Handlebars template/).waitFor();
    await expect(subject.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(language.inputValue()).resolves.toBe('fr');
    expect((await t.http().get(`/api/v1/sectors/${own}/settings`).set(admin)).body.LocalizedTemplates).toEqual({ de: { PasswordResetEmailSubject: 'Neues Passwort für {{brandName}}' } });
    await checkAccessibleScreen(page, 'lang-templates-fr', SHOTS);
  });

  it('the admin console speaks the picked language: German screens, also at a phone’s width', async () => {
    const page = await openPage('en-US');
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
    await page.getByRole('combobox', { name: 'Language' }).selectOption('de');
    const nav = page.getByRole('navigation', { name: 'Konsole' });
    await nav.getByRole('link', { name: 'Benutzer', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Benutzer' }).waitFor();
    await page.getByRole('button', { name: 'Neuer Benutzer' }).waitFor();
    expect(await htmlLang(page)).toBe('de');
    await checkAccessibleScreen(page, 'lang-console-users-de', SHOTS);
    await nav.getByRole('link', { name: 'Einstellungen', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sektoreinstellungen' }).waitFor();
    await page.getByLabel('Zweiten Faktor verlangen (MFA)').waitFor();
    // The longest words at 390 px: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageWidth(page)).toEqual({ overflow: false, wider: [] });
    await page.goto(`${t.baseUrl}/console/sectors/${tenant.rootSectorID}/users`);
    await page.getByRole('heading', { level: 1, name: 'Benutzer' }).waitFor();
    expect(await pageWidth(page)).toEqual({ overflow: false, wider: [] });
    await checkAccessibleScreen(page, 'lang-console-users-de-390', SHOTS);
  });

  it('a browser language without a catalogue falls back to the sector’s default language', async () => {
    const page = await openPage('ja-JP');
    await page.goto(signInURL());
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    const res = await t.http().put(`/api/v1/sectors/${sector}/settings`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ DefaultLanguage: 'de' });
    expect(res.status).toBe(200);
    const fresh = await openPage('ja-JP');
    await fresh.goto(signInURL());
    await fresh.getByRole('heading', { level: 1, name: 'Anmelden' }).waitFor();
    expect(await htmlLang(fresh)).toBe('de');
    await checkAccessibleScreen(fresh, 'lang-sign-in-default-de', SHOTS);
  });
});
