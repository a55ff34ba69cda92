/**
 * The console's Dashboard and Audit log screens, in a real browser: Debian's
 * chromium through playwright-core, against the real service (serving the built
 * console from dist/console) on a real PostgreSQL.
 *
 * A tenant's first admin, after some sign-ins (two failed) in the default sector:
 * - lands on the dashboard: its cards show the users, live sessions and sign-ins
 *   of the period as the API counts them; the chart's table lists today's
 *   sign-ins and failed attempts;
 * - opens the audit log: every event, users linking to their page; filters by
 *   type and sees only that type; the filter is in the URL, and opening that URL
 *   again (a client-side navigation: tokens live in the page's memory, so no
 *   reload) shows the same filtered view; opens one event's details; at 390 px the
 *   events are cards, nothing scrolls sideways and the details toggle still works.
 * Both screens are checked with axe (no serious or critical violations) in light
 * and dark mode and photographed at 1280 and 390 px to
 * test-artifacts/screenshots/console-dashboard*.png and console-audit*.png.
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, checkAccessibleScreen, newConsolePage, requireConsoleBuild, signInToConsole, startBrowser } from './support/browser';
import { createUser, expectError, ProvisionedTenant, provisionTenant } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(120_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');

interface Stats {
  users: number;
  activeSessions: number;
  days: Array<{ day: string; signIns: number; signInFailures: number; signUps: number }>;
}

describe('console: a sector’s dashboard and audit log, in chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenant: ProvisionedTenant;
  let alice = '';
  const aliceEmail = `alice-${Date.now()}@example.test`;
  const PASSWORD = 'alice-dashboard-password-1';

  const S = () => tenant.rootSectorID;
  const nav = () => page.getByRole('navigation', { name: /console/i });
  const card = (label: string) => page.locator('.stat-card').filter({ has: page.getByRole('term').getByText(label, { exact: true }) });
  const eventsTable = () => page.getByRole('table', { name: 'Audit events of this sector' });

  async function stats(): Promise<Stats> {
    const res = await t.http().get(`/api/v1/sectors/${S()}/stats`).set('Authorization', `Bearer ${tenant.adminToken}`);
    expect(res.status).toBe(200);
    return res.body as Stats;
  }

  /** axe in light and dark mode, and screenshots of both at the current width. */
  const checkScreen = (name: string) => checkAccessibleScreen(page, `console-${name}`, SHOTS);

  /** The same screen at 390 px (light and dark, axe-checked, no sideways page scroll), then back at 1280 px. */
  async function checkNarrow(name: string): Promise<void> {
    await page.setViewportSize({ width: 390, height: 844 });
    const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
    // What sticks out, named when something does.
    const wider = width === 390 ? [] : await page.evaluate(() =>
      Array.from((globalThis as any).document.querySelectorAll('body *') as any[])
        .filter((el) => el.getBoundingClientRect().right > 391 && !el.closest('.table-scroll'))
        .slice(0, 5)
        .map((el) => `${el.tagName.toLowerCase()}.${String(el.className)} ${Math.round(el.getBoundingClientRect().right)}`),
    );
    expect({ screen: name, width, wider }).toEqual({ screen: name, width: 390, wider: [] });
    await checkScreen(`${name}-390`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** Goes to a console path inside the page (history push + popstate), as a followed link does: the session in memory stays. */
  async function openInPage(path: string): Promise<void> {
    await page.evaluate((to) => {
      const w = globalThis as any;
      w.history.pushState({}, '', to);
      w.dispatchEvent(new w.PopStateEvent('popstate', { state: {} }));
    }, path);
  }

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    tenant = await provisionTenant(t);
    // Activity to show: a user created, signed in twice, refused twice.
    alice = await createUser(t, tenant.adminToken, S(), { email: aliceEmail, password: PASSWORD });
    await t.login(aliceEmail, PASSWORD, S());
    await t.login(aliceEmail, PASSWORD, S());
    for (const wrong of ['wrong-password-1', 'wrong-password-2']) {
      expectError(await t.http().post('/api/v1/login/password').send({ username: aliceEmail, password: wrong, sectorID: S() }), 401, 16, 'INVALID_CREDENTIALS');
    }
    browser = await startBrowser();
    ({ context, page } = await newConsolePage(browser, t.baseUrl));
  });

  afterAll(() => closeAll([context, browser], t));

  it('lands on the dashboard: the cards and the chart’s table show the API’s figures', async () => {
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: S() });
    // The console's home for a sector admin is the sector's dashboard.
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/sectors/${S()}/dashboard`);
    await nav().getByRole('link', { name: 'Dashboard', exact: true }).waitFor();

    const expected = await stats();
    const today = expected.days[expected.days.length - 1];
    expect(today.day).toBe(new Date().toISOString().slice(0, 10));
    // The admin's sign-in at provisioning, Alice's two, the browser's.
    expect(today.signIns).toBe(4);
    expect(today.signInFailures).toBe(2);
    const signIns = expected.days.reduce((n, d) => n + d.signIns, 0);
    await expect(card('Users').locator('.stat-card__value').innerText()).resolves.toBe(expected.users.toLocaleString('en-US'));
    await expect(card('Active sessions').locator('.stat-card__value').innerText()).resolves.toBe(expected.activeSessions.toLocaleString('en-US'));
    await expect(card('Sign-ins, last 30 days').locator('.stat-card__value').innerText()).resolves.toBe(signIns.toLocaleString('en-US'));
    expect(expected.users).toBe(2);

    // The chart is one labelled image; its table (hidden until asked for) carries the same figures.
    await page.getByRole('img', { name: /Sign-ins and failed attempts per day/ }).waitFor();
    const table = page.getByRole('table', { name: 'Sign-ins per UTC day' });
    await expect(table.getByRole('row').count()).resolves.toBe(31);
    const todayRow = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: today.day }) });
    await expect(todayRow.getByRole('cell').allInnerTexts()).resolves.toEqual([String(today.signIns), String(today.signInFailures), String(today.signUps)]);
    await checkScreen('dashboard');

    await page.getByRole('button', { name: 'Show as table' }).click();
    await expect(page.getByRole('button', { name: 'Hide the table' }).getAttribute('aria-expanded')).resolves.toBe('true');
    await expect(table.isVisible()).resolves.toBe(true);
    await checkScreen('dashboard-table');
    await page.getByRole('button', { name: 'Hide the table' }).click();
    await checkNarrow('dashboard');
  });

  it('lists the audit events, filters them by type in the URL, and opens one’s details', async () => {
    await nav().getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    // Newest first: the events of Alice's creation and sign-ins are there.
    await eventsTable().getByText('user.created', { exact: true }).waitFor();
    await eventsTable().getByText('sign_in', { exact: true }).first().waitFor();
    // Alice, a user of this sector, links to her page.
    const aliceLink = eventsTable().getByRole('link', { name: `Target: user ${alice}` }).first();
    await expect(aliceLink.getAttribute('href')).resolves.toBe(`/console/sectors/${S()}/users/${alice}`);
    await checkScreen('audit');

    // Filter by type: only that type is listed, and the filter is in the URL.
    const filters = page.getByRole('form', { name: 'Filter events' });
    await filters.getByLabel('Type').selectOption('user.created');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await eventually(async () => new URL(page.url()).searchParams.get('type') === 'user.created', 10_000, 'the type in the URL');
    const typesShown = async () => (await eventsTable().locator('tbody tr td[data-label="Type"] code').allInnerTexts()).map((s) => s.trim());
    await eventually(async () => {
      const types = await typesShown();
      return types.length > 0 && types.every((s) => s === 'user.created');
    }, 10_000, 'only user.created events');
    const filteredUrl = `${new URL(page.url()).pathname}${new URL(page.url()).search}`;
    expect(filteredUrl).toBe(`/console/sectors/${S()}/audit?type=user.created`);
    await checkScreen('audit-filtered');

    // The link to the filtered view shows it again (reached inside the page: a reload would sign out).
    await nav().getByRole('link', { name: 'Dashboard', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    await openInPage(`/console/sectors/${S()}/audit?type=sign_in`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await expect(filters.getByLabel('Type').inputValue()).resolves.toBe('sign_in');
    await eventually(async () => {
      const types = await typesShown();
      return types.length === 6 && types.every((s) => s === 'sign_in');
    }, 10_000, 'only sign_in events');
    // The refused attempts are marked.
    await expect(eventsTable().getByText('failure', { exact: true }).count()).resolves.toBe(2);

    // One event's details: its other fields as JSON.
    const first = eventsTable().getByRole('button', { name: /^Show details of event \d+$/ }).first();
    const id = /\d+$/.exec((await first.textContent()) ?? '')?.[0] ?? '';
    await first.click();
    const toggle = eventsTable().getByRole('button', { name: `Hide details of event ${id}` });
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
    const details = page.locator(`[id="${await toggle.getAttribute('aria-controls')}"] pre`);
    const fields = JSON.parse(await details.innerText()) as Record<string, unknown>;
    expect(Object.keys(fields).sort()).toEqual(['clientAddress', 'details', 'id', 'outcome', 'reason', 'requestId', 'sectorID']);
    expect(fields.sectorID).toBe(S());
    await checkScreen('audit-details');

    // At 390 px the events are cards, as DataTable's are: the page does not scroll sideways and each
    // event's details toggle is on screen and works.
    await page.setViewportSize({ width: 390, height: 844 });
    const cards = page.getByRole('list', { name: 'Audit events of this sector' });
    await cards.waitFor();
    await expect(page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)).resolves.toBeLessThanOrEqual(390);
    const hide = cards.getByRole('button', { name: `Hide details of event ${id}` });
    await expect(hide.isVisible()).resolves.toBe(true);
    const box = await hide.boundingBox();
    expect(box !== null && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await hide.click();
    const show = cards.getByRole('button', { name: `Show details of event ${id}` });
    await expect(show.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(page.locator(`[id="audit-event-${id}"]`).count()).resolves.toBe(0);
    await show.click();
    await expect(hide.getAttribute('aria-expanded')).resolves.toBe('true');
    await expect(details.isVisible()).resolves.toBe(true);
    expect(JSON.parse(await details.innerText())).toEqual(fields);
    await expect(page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)).resolves.toBeLessThanOrEqual(390);
    await checkNarrow('audit');

    // Days in the browser's time zone: today's events are in today, none in tomorrow (the empty state says so).
    const browserDay = (plus: number) => page.evaluate((p) => {
      const d = new Date(Date.now() + p * 86_400_000);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    }, plus);
    const today = await browserDay(0);
    await filters.getByLabel('From day').fill(today);
    await filters.getByLabel('To day').fill(today);
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await eventually(async () => new URL(page.url()).searchParams.get('to') === today, 10_000, 'the days in the URL');
    await eventually(async () => (await typesShown()).length === 6, 10_000, 'today’s six sign_in events');
    await filters.getByLabel('From day').fill(await browserDay(1));
    await filters.getByLabel('To day').fill(await browserDay(1));
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No events match these filters.').waitFor();
    // A range that ends before it starts is refused beside the field, nothing asked.
    await filters.getByLabel('To day').fill(today);
    await filters.getByText('The last day is before the first day.').waitFor();
    await expect(filters.getByRole('button', { name: 'Apply filters' }).isDisabled()).resolves.toBe(true);
    await checkScreen('audit-empty');

    // Clearing the filters empties the URL's query.
    await filters.getByRole('button', { name: 'Clear filters' }).click();
    await eventually(async () => new URL(page.url()).search === '', 10_000, 'no filter in the URL');
    // The form follows the URL on the render after it changes.
    await eventually(async () => (await filters.getByLabel('Type').inputValue()) === '', 10_000, 'the type filter cleared');
  });
});
