/**
 * The console through outages and redeploys, in a real browser: Debian's chromium
 * through playwright-core, against the real service (serving the built console
 * from dist/console) on a real PostgreSQL. A platform admin signs in to /console and:
 * - with the service stopped, opens a screen not loaded before: the header and
 *   navigation stay, the screen's place says it could not be loaded (role=alert,
 *   focused heading, "Try again"); once the service is started again on the same
 *   port and data, "Try again" shows the screen;
 * - after a redeploy (a screen's code file answers 404 once, as when its hashed
 *   name changed), the page reloads itself exactly once and shows the screen
 *   (after signing in again when the session does not outlive the reload); a second missing file within the minute shows the error
 *   panel instead of reloading again (no loop);
 * - saves sector settings while the service answers 503: what was typed stays in
 *   the field, the error says so and takes focus; once the service answers, the
 *   save succeeds;
 * - loads the sign-in page without a single 404 (the favicon is a built asset).
 * The error panel is checked with axe (no serious or critical violations), light
 * and dark, and photographed to test-artifacts/screenshots/console-screen-failed*.png.
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { closeAll, newConsolePage, requireConsoleBuild, seriousViolations, startBrowser } from './support/browser';
import { ADMIN_EMAIL, ADMIN_PASSWORD, NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(180_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const PANEL_TITLE = 'This screen could not be loaded';
/** Where the last automatic reload is remembered (console/src/ui/chunkReload.ts). */
const RELOADED_AT_KEY = 'iam.console.chunkReloadAt';

describe('console: outages, redeploys and failed saves, in chromium', () => {
  let t: TestApp;
  let port = 0;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const nav = (p: Page) => p.getByRole('navigation', { name: /console/i });
  const panel = (p: Page) => p.getByRole('alert').filter({ has: p.getByRole('heading', { level: 1, name: PANEL_TITLE }) });
  /** The tag and text of the focused element. */
  const focused = (p: Page) =>
    p.evaluate(() => {
      const el = (globalThis as any).document.activeElement;
      return { tag: String(el?.tagName ?? ''), role: String(el?.getAttribute('role') ?? ''), text: String(el?.textContent ?? '') };
    });

  async function openPage(): Promise<Page> {
    const { context, page } = await newConsolePage(browser, t.baseUrl);
    contexts.push(context);
    return page;
  }

  /** Fills the console's sign-in form on the page shown now and waits for the console's navigation. */
  async function submitSignIn(p: Page): Promise<void> {
    await p.getByLabel(/^(username|username or email|email or username)$/i).fill(ADMIN_EMAIL);
    await p.getByLabel(/^password$/i).fill(ADMIN_PASSWORD);
    await p.getByRole('button', { name: /^(sign in|continue|next)$/i }).click();
    await nav(p)
      .waitFor()
      .catch(async (err: Error) => {
        throw new Error(`no console after signing in (at ${p.url()}): ${(await p.locator('body').innerText()).slice(0, 600)}\n${err.message}`);
      });
  }

  async function signIn(p: Page): Promise<void> {
    await p.goto(`${t.baseUrl}/console/sign-in`);
    await submitSignIn(p);
  }

  async function checkPanel(p: Page, name: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await p.emulateMedia({ colorScheme });
      expect({ screen: `${name}-${colorScheme}`, violations: await seriousViolations(p) }).toEqual({ screen: `${name}-${colorScheme}`, violations: [] });
      await p.screenshot({ path: join(SHOTS, `console-${name}${colorScheme === 'dark' ? '-dark' : ''}.png`), fullPage: true, style: '.toasts { display: none !important; }' });
    }
    await p.emulateMedia({ colorScheme: 'light' });
  }

  /**
   * Answers a screen's code file 404 (both its modulepreload and its import), as after
   * a redeploy renamed it, until `restore()`; counts the requests.
   */
  async function missingFile(p: Page, screen: string): Promise<{ requests: number; missing: number; restore: () => void }> {
    const file = { requests: 0, missing: 0, gone: true, restore: () => (file.gone = false) };
    await p.context().route(new RegExp(`/console/assets/${screen}-[^/]+\\.js$`), async (route: Route) => {
      file.requests += 1;
      if (!file.gone) return route.continue();
      file.missing += 1;
      await route.fulfill({ status: 404, contentType: 'application/json', body: '{"code":5,"message":"No such file.","details":[]}' });
    });
    return file;
  }

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    port = Number(new URL(t.baseUrl).port);
    browser = await startBrowser();
  });

  afterAll(() => closeAll([...contexts, browser], t));

  it('server down mid-navigation: the header stays, the screen says so, and "Try again" shows it once the service is back', async () => {
    const page = await openPage();
    await signIn(page);
    const failures: string[] = [];
    page.on('requestfailed', (r) => failures.push(r.url()));

    // The service stops (a real shutdown; the database stays for the restart).
    await t.close();
    await nav(page).getByRole('link', { name: 'Webhooks', exact: true }).click();
    await panel(page).waitFor();
    expect(failures.some((u) => /\/console\/assets\/WebhooksPage-/.test(u))).toBe(true);
    // Never a blank page: the header, its navigation and the sign-out button stay usable.
    await expect(nav(page).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: /sign out/i }).isVisible()).resolves.toBe(true);
    await expect(panel(page).getByRole('button', { name: 'Try again' }).isVisible()).resolves.toBe(true);
    await expect(panel(page).innerText()).resolves.toMatch(/network|unavailable|newer version/i);
    await eventually(async () => (await focused(page)).tag === 'H1' && (await focused(page)).text === PANEL_TITLE, 5_000, 'focus on the panel heading');
    expect(await page.title()).toMatch(new RegExp(`^${PANEL_TITLE}`));
    // No reload was attempted while the service was down.
    await expect(page.evaluate((key) => (globalThis as any).sessionStorage.getItem(key), RELOADED_AT_KEY)).resolves.toBeNull();
    await checkPanel(page, 'screen-failed');

    // Trying while still down answers the panel again, never a blank page.
    await panel(page).getByRole('button', { name: 'Try again' }).click();
    await panel(page).waitFor();
    await expect(nav(page).isVisible()).resolves.toBe(true);

    // The service starts again on the same port and data: "Try again" loads the screen.
    t = await startTestApp({ env: { ...NO_THROTTLE }, databaseName: t.databaseName, port });
    await panel(page).getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await expect(panel(page).count()).resolves.toBe(0);
    await expect(nav(page).isVisible()).resolves.toBe(true);
  });

  it('a screen that fails while the service is down recovers by navigating elsewhere and back', async () => {
    const page = await openPage();
    await signIn(page);
    await page.context().route('**/console/assets/RolesPage-*.js', (route) => route.abort('connectionrefused'));
    // The page's own address does not answer either (the service is down), so no reload is tried.
    await page.context().route('**/console/sectors/**', (route) => (route.request().resourceType() === 'document' ? route.continue() : route.abort('connectionrefused')));
    await nav(page).getByRole('link', { name: 'Roles', exact: true }).click();
    await panel(page).waitFor();
    await page.context().unrouteAll({ behavior: 'wait' });
    await nav(page).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: /settings/i }).waitFor();
    await nav(page).getByRole('link', { name: 'Roles', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: /roles/i }).waitFor();
    await expect(panel(page).count()).resolves.toBe(0);
  });

  it('renamed chunk after a redeploy: the page reloads once by itself and shows the screen; a second miss shows the panel, no loop', async () => {
    const page = await openPage();
    await signIn(page);
    const tokens = await missingFile(page, 'TokensPage');
    let loads = 0;
    page.on('load', () => {
      loads += 1;
      // The reloaded page is the new version: its files are there.
      tokens.restore();
    });

    await nav(page).getByRole('link', { name: 'API tokens', exact: true }).click();
    // After the reload the screen shows, or (when the session did not survive the reload) the
    // sign-in page, which returns to it.
    const screen = page.getByRole('heading', { level: 1, name: /api tokens/i });
    const after = await eventually(
      async () => loads > 0 && ((await screen.isVisible()) ? 'screen' : /\/console\/sign-in\?.*next=/.test(page.url()) ? 'sign-in' : false),
      15_000,
      'the reload, then the screen or the sign-in page',
    ).catch(async (err: Error) => {
      throw new Error(`${err.message} (loads ${loads}, at ${page.url()}): ${(await page.locator('body').innerText()).slice(0, 600)}`);
    });
    if (after === 'sign-in') await submitSignIn(page);
    await screen.waitFor();
    expect(tokens.missing).toBeGreaterThan(0);
    expect(tokens.requests).toBeGreaterThan(tokens.missing);
    expect(loads).toBe(1);
    const reloadedAt = Number(await page.evaluate((key) => (globalThis as any).sessionStorage.getItem(key), RELOADED_AT_KEY));
    expect(Math.abs(Date.now() - reloadedAt)).toBeLessThan(60_000);

    // Within the minute another file is missing: no second reload, the panel with its retry instead.
    const clients = await missingFile(page, 'ClientsPage');
    await nav(page).getByRole('link', { name: 'Apps (OpenID Connect)', exact: true }).click();
    await panel(page).waitFor().catch(async (err: Error) => {
      throw new Error(`${err.message} (loads ${loads}, requests ${clients.requests}, at ${page.url()}): ${(await page.locator('body').innerText()).slice(0, 900)}`);
    });
    expect(loads).toBe(1);
    await expect(nav(page).isVisible()).resolves.toBe(true);
    expect(clients.missing).toBeGreaterThan(0);
    // The file is back: "Try again" shows the screen, still without a reload.
    clients.restore();
    await panel(page).getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { level: 1, name: /apps|openid/i }).waitFor();
    expect(clients.requests).toBeGreaterThan(clients.missing);
    expect(loads).toBe(1);
  });

  it('a failed save keeps the input: a 503 says so, focused, and the next save succeeds', async () => {
    const page = await openPage();
    await signIn(page);
    await nav(page).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: /settings/i }).waitFor();
    const lifetime = page.getByLabel('Access token lifetime', { exact: false });
    await eventually(async () => (await lifetime.inputValue()) !== '', 10_000, 'the stored settings in the form');
    const before = await lifetime.inputValue();
    const typed = before === '5400' ? '5500' : '5400';

    let refused = 0;
    const unavailable = async (route: Route) => {
      if (route.request().method() !== 'PUT') return route.continue();
      refused += 1;
      await route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ code: 14, message: 'The service is unavailable.', details: [] }) });
    };
    await page.route('**/api/v1/sectors/*/settings', unavailable);
    await lifetime.fill(typed);
    await page.getByRole('button', { name: 'Save settings' }).click();
    const error = page.getByRole('alert').filter({ hasText: 'The service is unavailable right now. Try again in a moment; what you typed is kept.' });
    await error.waitFor();
    expect(refused).toBe(1);
    await expect(lifetime.inputValue()).resolves.toBe(typed);
    await eventually(async () => {
      const f = await focused(page);
      return f.role === 'alert' && f.text.includes('what you typed is kept');
    }, 5_000, 'focus on the error');
    expect(await error.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= (globalThis as any).innerHeight;
    })).toBe(true);

    // The service answers again: the same input saves.
    await page.unroute('**/api/v1/sectors/*/settings', unavailable);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: /saved/i }).first().waitFor();
    await expect(error.count()).resolves.toBe(0);
    const token = await t.platformToken();
    const me = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sectorID: string };
    const stored = await t.http().get(`/api/v1/sectors/${me.sectorID}/settings`).set('Authorization', `Bearer ${token}`);
    expect(stored.status).toBe(200);
    expect(stored.body.AccessTokenDuration).toBe(typed);
  });

  it('no 404 favicon: loading the sign-in page answers no 404, and the icon is a cached asset', async () => {
    const page = await openPage();
    const statuses: Array<{ url: string; status: number }> = [];
    page.on('response', (r) => statuses.push({ url: r.url(), status: r.status() }));
    await page.goto(`${t.baseUrl}/console/sign-in`);
    await page.getByLabel(/^password$/i).waitFor();
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toMatch(/^\/console\/assets\/favicon-[\w-]+\.svg$/);
    const icon = await page.request.get(`${t.baseUrl}${href}`);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/svg+xml');
    expect(icon.headers()['cache-control']).toMatch(/immutable/);
    expect(statuses.filter((s) => s.status === 404)).toEqual([]);
  });
});
