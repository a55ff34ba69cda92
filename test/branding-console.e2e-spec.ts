/**
 * A branded sector's public pages in a real browser (Debian's chromium through
 * playwright-core), against the real service on a real PostgreSQL: the sector's name,
 * logo, favicon, colours in light and dark mode and legal links on its sign-in page (in
 * English and German), its sign-up, forgot-password and mailed-link pages and, once signed
 * in, its account page; the console's settings edit the look; a sector without branding
 * keeps the built-in look.
 * axe finds no serious or critical violation in either mode (the service refused
 * colours that would have failed contrast when they were saved); screenshots go to
 * test-artifacts/screenshots/branded-*.png.
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkAccessibleScreen, closeAll, newConsolePage, requireConsoleBuild, signInToConsole, startBrowser } from './support/browser';
import { createSector, createUser, provisionTenant, ProvisionedTenant, uniqueSlug } from './support/factories';
import { ico, png } from './support/images';
import { startAppAtOwnAddress, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const PRIMARY = '#0b6e4f';
const PRIMARY_DARK = '#a8e6cf';
const BACKGROUND_DARK = '#0d1b16';

describe('a branded sector’s pages, in chromium', () => {
  let t: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let tenant: ProvisionedTenant;
  const sectorSlug = uniqueSlug('shop');
  let sector = '';
  const user = { email: 'kim@shop.example', password: 'kim-long-password-1' };

  const admin = () => ({ Authorization: `Bearer ${tenant.adminToken}` });

  async function openPage(): Promise<Page> {
    const { context, page } = await newConsolePage(browser, t.baseUrl);
    contexts.push(context);
    return page;
  }

  /** The value a custom property of the document resolves to now. */
  const cssVar = (page: Page, name: string) => page.evaluate((n) => (globalThis as any).getComputedStyle((globalThis as any).document.documentElement).getPropertyValue(n).trim(), name);

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    t = await startAppAtOwnAddress();
    tenant = await provisionTenant(t);
    sector = await createSector(t, tenant.adminToken, sectorSlug);
    await createUser(t, tenant.adminToken, sector, user);
    const settings = await t
      .http()
      .put(`/api/v1/sectors/${sector}/settings`)
      .set(admin())
      .send({
        BrandDisplayName: 'Acme Shop',
        BrandPrimaryColor: PRIMARY,
        BrandBackgroundColor: '#ffffff',
        BrandPrimaryColorDark: PRIMARY_DARK,
        BrandBackgroundColorDark: BACKGROUND_DARK,
        TermsURL: 'https://shop.example/terms',
        PrivacyURL: 'https://shop.example/privacy',
        SupportEmail: 'help@shop.example',
        SelfSignUpAllowed: true,
      });
    expect(settings.status).toBe(200);
    for (const [asset, bytes] of [['logo', png(160, 40, PRIMARY)], ['favicon', ico(32)]] as const) {
      const res = await t.http().put(`/api/v1/sectors/${sector}/branding/${asset}`).set(admin()).send({ data: bytes.toString('base64') });
      expect(res.status).toBe(200);
    }
    browser = await startBrowser();
  });

  afterAll(() => closeAll([...contexts, browser], t));

  it('the sign-in page shows the sector’s name, logo, favicon, colours and links, in light and dark mode', async () => {
    const page = await openPage();
    await page.goto(`${t.baseUrl}/t/${tenant.slug}/${sectorSlug}/account/sign-in`);
    const logo = page.getByRole('banner').getByRole('img', { name: 'Acme Shop' });
    await logo.waitFor();
    // The image loads (a broken one never gets a natural width).
    await page.waitForFunction(() => ((globalThis as any).document.querySelector('img.brand-logo')?.naturalWidth ?? 0) > 0, undefined, { timeout: 10_000 });
    await expect(logo.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).resolves.toBe(160);
    await expect(page.getByRole('banner').getByText('Acme Shop', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.locator('link[rel="icon"]').getAttribute('href')).resolves.toMatch(new RegExp(`/api/v1/branding/${sector}/favicon/[\\w-]{16}$`));
    await expect(page.getByRole('link', { name: 'Terms of service' }).getAttribute('href')).resolves.toBe('https://shop.example/terms');
    await expect(page.getByRole('link', { name: 'Privacy policy' }).getAttribute('href')).resolves.toBe('https://shop.example/privacy');
    await expect(page.getByRole('link', { name: 'help@shop.example' }).getAttribute('href')).resolves.toBe('mailto:help@shop.example');

    await page.emulateMedia({ colorScheme: 'light' });
    expect({ accent: await cssVar(page, '--accent'), label: await cssVar(page, '--accent-text'), bg: await cssVar(page, '--bg') }).toEqual({ accent: PRIMARY, label: '#ffffff', bg: '#ffffff' });
    const button = page.getByRole('button', { name: 'Sign in', exact: true });
    await expect(button.evaluate((b) => (globalThis as any).getComputedStyle(b).backgroundColor)).resolves.toBe('rgb(11, 110, 79)');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect({ accent: await cssVar(page, '--accent'), label: await cssVar(page, '--accent-text'), bg: await cssVar(page, '--bg') }).toEqual({ accent: PRIMARY_DARK, label: '#111111', bg: BACKGROUND_DARK });
    await page.emulateMedia({ colorScheme: 'light' });
    await checkAccessibleScreen(page, 'branded-sign-in', SHOTS);

    // The same page in German: the look stays, the words and the links' names change.
    await page.getByRole('combobox', { name: 'Language' }).selectOption('de');
    await page.getByRole('heading', { level: 1, name: 'Anmelden – Acme Shop' }).waitFor();
    await expect(page.getByRole('link', { name: 'Nutzungsbedingungen' }).getAttribute('href')).resolves.toBe('https://shop.example/terms');
    await expect(page.getByRole('link', { name: 'Datenschutzerklärung' }).getAttribute('href')).resolves.toBe('https://shop.example/privacy');
    expect(await cssVar(page, '--accent')).toBe(PRIMARY);
    await checkAccessibleScreen(page, 'branded-sign-in-de', SHOTS);
  });

  it('the account page keeps the look once the user has signed in', async () => {
    const page = await openPage();
    await page.goto(`${t.baseUrl}/t/${tenant.slug}/${sectorSlug}/account/sign-in`);
    await page.getByLabel('Username or email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await page.getByRole('banner').getByRole('img', { name: 'Acme Shop' }).waitFor();
    expect(await cssVar(page, '--accent')).toBe(PRIMARY);
    await expect(page.getByRole('link', { name: 'Terms of service' }).isVisible()).resolves.toBe(true);
    await checkAccessibleScreen(page, 'branded-account', SHOTS);
  });

  it('the console’s settings edit the look with a live preview, refuse a low contrast at its field, and take a new logo', async () => {
    const page = await openPage();
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
    await page.goto(`${t.baseUrl}/console/sectors/${sector}/settings`);
    const form = page.getByRole('form', { name: 'Sector settings' });
    const displayName = form.getByLabel('Display name', { exact: true });
    await displayName.waitFor();
    expect(await displayName.inputValue()).toBe('Acme Shop');
    const primary = form.getByLabel('Primary colour (light mode)');
    expect(await primary.inputValue()).toBe(PRIMARY);

    // The preview follows the colour as it is typed, before saving.
    await primary.fill('#7a1fa2');
    const lightButton = page.getByRole('figure').filter({ hasText: 'Light mode' }).getByText('Sign in', { exact: true });
    await expect(lightButton.evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor)).resolves.toBe('rgb(122, 31, 162)');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).first().waitFor();
    const stored = await t.http().get(`/api/v1/sectors/${sector}/settings`).set(admin());
    expect(stored.body.BrandPrimaryColor).toBe('#7a1fa2');

    // A colour the pages could not be read with: refused, said once, at its field.
    await primary.fill('#ffd60a');
    await form.getByRole('button', { name: 'Save settings' }).click();
    const refusal = form.getByText(/^contrast with the background is 1\.\d:1; at least 4\.5:1 is needed \(WCAG AA\)$/);
    await refusal.waitFor();
    await expect(refusal.count()).resolves.toBe(1);
    expect((await t.http().get(`/api/v1/sectors/${sector}/settings`).set(admin())).body.BrandPrimaryColor).toBe('#7a1fa2');

    // A new logo, chosen as a file: saved at once; an SVG is refused with the reason.
    const before = (await t.http().get(`/api/v1/sectors/${sector}/settings`).set(admin())).body.BrandLogoURL as string;
    await page.getByLabel('Replace the logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png(200, 50, '#7a1fa2') });
    await page.getByRole('status').filter({ hasText: 'Logo saved.' }).first().waitFor();
    const after = (await t.http().get(`/api/v1/sectors/${sector}/settings`).set(admin())).body.BrandLogoURL as string;
    expect(after).not.toBe(before);
    await page.getByRole('img', { name: 'Current logo' }).and(page.locator(`img[src="${after}"]`)).waitFor();
    await page.getByLabel('Replace the logo').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
    await page.getByText(/this is an SVG image \(it may carry script\)/).waitFor();
    await checkAccessibleScreen(page, 'branding-settings', SHOTS);
  });

  it('the sign-up, forgot-password and mailed-link pages wear the look too, clean for axe in light and dark mode', async () => {
    const pages = [
      ['account/signup', 'sign-up'],
      ['account/forgot-password', 'forgot-password'],
      ['reset-password?token=not-a-real-token', 'reset-link'],
    ] as const;
    // The primary colour as stored now (the settings test before this one changed it).
    const primary = (await t.http().get(`/api/v1/sectors/${sector}/settings`).set(admin())).body.BrandPrimaryColor as string;
    for (const [path, name] of pages) {
      const page = await openPage();
      await page.goto(`${t.baseUrl}/t/${tenant.slug}/${sectorSlug}/${path}`);
      await page.getByRole('banner').getByRole('img', { name: 'Acme Shop' }).waitFor();
      expect(await cssVar(page, '--accent')).toBe(primary);
      await expect(page.getByRole('link', { name: 'Privacy policy' }).getAttribute('href')).resolves.toBe('https://shop.example/privacy');
      await checkAccessibleScreen(page, `branded-${name}`, SHOTS);
      // The reset page names its kind from its address, even when a link lost its type.
      if (name === 'reset-link') await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    }
  });

  it('a sector without branding keeps the built-in look', async () => {
    const page = await openPage();
    await page.goto(`${t.baseUrl}/t/${tenant.slug}/account/sign-in`);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await expect(page.getByRole('banner').getByRole('img').count()).resolves.toBe(0);
    expect(await cssVar(page, '--accent')).toBe('#1f5fbf');
    await expect(page.getByRole('link', { name: 'Terms of service' }).count()).resolves.toBe(0);
  });
});
