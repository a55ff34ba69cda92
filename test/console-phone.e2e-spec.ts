/**
 * The console and the public pages on a phone, in a real browser: Debian's chromium
 * through playwright-core at a 390×844 viewport, against the real service (serving
 * the built console from dist/console) on a real PostgreSQL.
 *
 * Beforehand, through the API, so the screens have rows: three users of the
 * tenant's default sector (one with a long address that must wrap), a role, an API
 * token, a webhook, an app (OpenID Connect) and a second sector.
 *
 * 1. The tenant's first admin signs in on the console's sign-in page, then opens
 *    every screen of the console's navigation for the default sector as a user
 *    would (links in the header, a user's page from the Users list): dashboard,
 *    users, a user's page, roles, settings (where self sign-up is turned on and
 *    saved), API tokens, social login, apps, webhooks, audit log and sectors.
 * 2. The tenant's public pages under `/t/{tenant}/`: sign-in, sign-up,
 *    forgot-password, and the account page after a user signs in.
 * On each screen, once its data has loaded: its heading shows, the page does not
 * scroll sideways (what sticks out, a box or a text, is named when something does),
 * the first row's main action (or the screen's own) lies wholly on screen, and axe
 * finds no serious or critical violation in light and dark mode; each is
 * photographed to test-artifacts/screenshots/phone-*.png. On the settings, every
 * checkbox's label starts beside its box, however long it is.
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { checkAccessibleScreen, closeAll, newConsolePage, pageWidth, requireConsoleBuild, signInToConsole, startBrowser } from './support/browser';
import { createSector, createUser, ProvisionedTenant, provisionTenant } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const PHONE = { width: 390, height: 844 };
const tag = randomBytes(3).toString('hex');

describe('the console and the public pages at phone width (390 px), in chromium', () => {
  let t: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let page: Page;
  let tenant: ProvisionedTenant;
  let otherSectorName = '';

  // A long address and name: they must wrap, never widen the page.
  const frieda = { email: `frieda.a-rather-long-mailbox-name.${tag}@a-long-subdomain.example.test`, password: `frieda-${tag}-password`, profile: { name: 'Frieda Example-Longname' } };
  const others = [`gus.${tag}@example.test`, `hana.${tag}@example.test`];
  const ROLE = 'invoice-reader';
  const TOKEN = `deploy-bot-${tag}`;
  const WEBHOOK_URL = `https://93.184.215.14/hooks/identity-events/${tag}?source=console-phone-check`;
  const APP = 'Invoices (phone check)';

  const S = () => tenant.rootSectorID;
  const bearer = () => ({ Authorization: `Bearer ${tenant.adminToken}` });
  const nav = () => page.getByRole('navigation', { name: /console/i });

  async function newPhonePage(): Promise<Page> {
    const { context, page: p } = await newConsolePage(browser, t.baseUrl);
    contexts.push(context);
    await p.setViewportSize(PHONE);
    return p;
  }

  /** Waits for `locator`; a timeout names the page's address and what it shows. */
  async function shows(p: Page, locator: Locator): Promise<void> {
    await locator.waitFor().catch(async (err: Error) => {
      throw new Error(`${err.message}\nthe browser is at ${p.url()} showing:\n${(await p.locator('body').innerText()).slice(0, 1000)}`);
    });
  }

  /** The action is shown and, once scrolled to, lies wholly inside the 390×844 viewport. */
  async function expectInReach(screen: string, action: Locator): Promise<void> {
    await action.scrollIntoViewIfNeeded();
    const box = await action.boundingBox();
    const inside = !!box && box.x >= 0 && box.y >= 0 && box.x + box.width <= PHONE.width && box.y + box.height <= PHONE.height;
    expect({ screen, visible: await action.isVisible(), inside, box }).toEqual({ screen, visible: true, inside: true, box });
  }

  /** No sideways scroll, the action in reach, axe clean in light and dark (photographed). */
  async function checkPhoneScreen(p: Page, screen: string, action?: Locator): Promise<void> {
    // The action shows once the screen's data has loaded: measured after that.
    if (action) await shows(p, action);
    expect({ screen, ...(await pageWidth(p, PHONE.width)) }).toEqual({ screen, overflow: false, wider: [] });
    if (action) await expectInReach(screen, action);
    await checkAccessibleScreen(p, `phone-${screen}`, SHOTS);
  }

  /** Opens a screen from the console's navigation and waits for its heading. */
  async function openFromNav(link: string, heading: string): Promise<void> {
    await nav().getByRole('link', { name: link, exact: true }).click();
    await shows(page, page.getByRole('heading', { level: 1, name: heading, exact: true }));
  }

  /** Opens a screen from the navigation, waits for `row` in its list and checks it with `action(list)` as its main action. */
  async function checkListScreen(screen: string, link: string, heading: string, list: string, row: (l: Locator) => Locator, action: (l: Locator) => Locator): Promise<void> {
    await openFromNav(link, heading);
    const rows = page.getByRole('list', { name: list });
    await shows(page, row(rows));
    await checkPhoneScreen(page, screen, action(rows));
  }

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    tenant = await provisionTenant(t);
    await createUser(t, tenant.adminToken, S(), frieda);
    for (const email of others) await createUser(t, tenant.adminToken, S(), { email, password: `pw-${email}` });
    const role = await t.http().put(`/api/v1/sectors/${S()}/roles/${ROLE}`).set(bearer()).send({ description: 'Reads and exports the invoices of every customer', permissions: ['invoices:read', 'invoices:export'] });
    expect(role.status).toBe(200);
    const token = await t.http().post(`/api/v1/sectors/${S()}/tokens`).set(bearer()).send({ name: TOKEN });
    expect(token.status).toBe(200);
    const webhook = await t.http().post(`/api/v1/sectors/${S()}/webhooks`).set(bearer()).send({ url: WEBHOOK_URL, events: ['user.deleted', 'user.updated'], description: 'CRM sync' });
    expect({ status: webhook.status, body: webhook.body }).toMatchObject({ status: 200, body: { url: WEBHOOK_URL } });
    const app = await t
      .http()
      .post(`/api/v1/sectors/${S()}/oidc/clients`)
      .set(bearer())
      .send({ clientName: APP, redirectURIs: [`https://invoices.example.test/auth/callback/a-rather-long-path-segment-${tag}`] });
    expect({ status: app.status, body: app.body }).toMatchObject({ status: 200, body: { client: { clientName: APP } } });
    const slug = `branch-offices-${tag}`;
    await createSector(t, tenant.adminToken, slug);
    otherSectorName = `Sector ${slug}`;
    browser = await startBrowser();
    page = await newPhonePage();
  });

  afterAll(() => closeAll([...contexts, browser], t));

  it('the console’s sign-in page fits, and the first admin signs in to the dashboard', async () => {
    await page.goto(`${t.baseUrl}/console/sign-in?sector=${encodeURIComponent(S())}`);
    await shows(page, page.getByRole('heading', { level: 1, name: /^Sign in to the console/ }));
    await checkPhoneScreen(page, 'console-sign-in', page.getByRole('button', { name: 'Sign in', exact: true }));

    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: S() });
    await shows(page, page.getByRole('heading', { level: 1, name: 'Dashboard', exact: true }));
    await checkPhoneScreen(page, 'dashboard', page.getByRole('button', { name: 'Refresh' }));
  });

  it('users, a user’s page and roles fit, their first row’s action in reach', async () => {
    await openFromNav('Users', 'Users');
    // The rows are cards below 600 px: a list, each row's actions buttons.
    const users = page.getByRole('list', { name: 'Users of this sector' });
    await shows(page, users.getByRole('link', { name: frieda.email }));
    await checkPhoneScreen(page, 'users', users.getByRole('listitem').first().getByRole('button', { name: /^Edit / }));

    // A user's page, opened from the list as a user would.
    await users.getByRole('link', { name: frieda.email }).click();
    await shows(page, page.getByRole('heading', { level: 1, name: frieda.profile.name }));
    await shows(page, page.getByRole('region', { name: 'App access' }).getByText('No app has access.'));
    await checkPhoneScreen(page, 'user-page', page.getByRole('region', { name: 'Profile' }).getByRole('button', { name: 'Edit profile' }));

    await checkListScreen('roles', 'Roles', 'Roles', 'Roles of this sector', (l) => l.getByText(ROLE, { exact: true }), (l) => l.getByRole('button', { name: `Edit role ${ROLE}` }));
  });

  it('settings fit, each checkbox’s label beside its box, and turning self sign-up on is saved from there', async () => {
    await openFromNav('Settings', 'Sector settings');
    const form = page.getByRole('form', { name: 'Sector settings' });
    const selfSignUp = form.getByRole('checkbox', { name: 'Allow self sign-up' });
    await shows(page, selfSignUp);
    const save = form.getByRole('button', { name: 'Save settings' });
    await checkPhoneScreen(page, 'settings', save);
    await selfSignUp.check();
    await save.click();
    await shows(page, page.getByRole('status').filter({ hasText: 'Settings saved.' }).first());
    const settings = await t.http().get(`/api/v1/sectors/${S()}/settings`).set(bearer());
    expect({ status: settings.status, SelfSignUpAllowed: settings.body.SelfSignUpAllowed }).toEqual({ status: 200, SelfSignUpAllowed: true });

    // Each checkbox's label starts on the box's line, however long it is (it wraps beside the box).
    const labelsBelowTheirBox = await form.evaluate((el) =>
      Array.from(el.querySelectorAll('.field-check') as ArrayLike<any>)
        .filter((row) => {
          const box = row.querySelector('input')?.getBoundingClientRect();
          const label = row.querySelector('label')?.getBoundingClientRect();
          return box && label && label.top >= box.bottom;
        })
        .map((row) => String(row.querySelector('label')?.textContent)),
    );
    expect(labelsBelowTheirBox).toEqual([]);
  });

  it('API tokens, social login, apps and webhooks fit, their first row’s action in reach', async () => {
    await checkListScreen('tokens', 'API tokens', 'API tokens', 'API tokens of this sector', (l) => l.getByText(TOKEN, { exact: true }), (l) => l.getByRole('button', { name: `Revoke ${TOKEN}` }));

    await openFromNav('Social login', 'Social login');
    // Each provider is a form of its own; the first one's save is its main action.
    await checkPhoneScreen(page, 'social-login', page.getByRole('button', { name: 'Save OpenID Connect provider' }));

    await checkListScreen('apps', 'Apps (OpenID Connect)', 'Apps (OpenID Connect)', 'Apps of this sector', (l) => l.getByText(APP).first(), (l) => l.getByRole('button', { name: `Edit ${APP}` }));
    await checkListScreen('webhooks', 'Webhooks', 'Webhooks', 'Webhooks of this sector', (l) => l.getByText(WEBHOOK_URL, { exact: true }), (l) => l.getByRole('button', { name: `Edit webhook ${WEBHOOK_URL}` }));
  });

  it('the audit log and the sectors fit, their first row’s action in reach', async () => {
    await checkListScreen('audit', 'Audit log', 'Audit log', 'Audit events of this sector', (l) => l.getByText('user.created', { exact: true }).first(), (l) => l.getByRole('button', { name: /^Show details of event \d+$/ }).first());
    await checkListScreen('sectors', 'Sectors', 'Sectors', 'Sectors of this tenant', (l) => l.getByText(otherSectorName, { exact: true }), (l) => l.getByRole('listitem').first().getByRole('link', { name: /^Users of / }));
  });

  it('the tenant’s public pages fit: sign-in, sign-up, forgot-password, and the account page after signing in', async () => {
    const p = await newPhonePage();
    // The tenant's address: its default sector's sign-in.
    await p.goto(`${t.baseUrl}/t/${tenant.slug}/`);
    await shows(p, p.getByRole('heading', { level: 1, name: /^Sign in/ }));
    await checkPhoneScreen(p, 'public-sign-in', p.getByRole('button', { name: 'Sign in', exact: true }));

    // Self sign-up is on (turned on in the settings above): the page offers it.
    await p.getByRole('link', { name: 'Create an account' }).click();
    await shows(p, p.getByRole('heading', { level: 1, name: 'Create an account' }));
    expect(new URL(p.url()).pathname).toBe(`/t/${tenant.slug}/account/signup`);
    await checkPhoneScreen(p, 'public-sign-up', p.getByRole('button', { name: 'Create account', exact: true }));

    await p.goto(`${t.baseUrl}/t/${tenant.slug}/account/sign-in`);
    await p.getByRole('link', { name: 'Forgot your password?' }).click();
    await shows(p, p.getByRole('heading', { level: 1, name: 'Reset your password' }));
    await checkPhoneScreen(p, 'public-forgot-password', p.getByRole('button', { name: 'Send me a link' }));

    await p.goto(`${t.baseUrl}/t/${tenant.slug}/account/sign-in`);
    await p.getByLabel('Username or email').fill(frieda.email);
    await p.getByLabel('Password', { exact: true }).fill(frieda.password);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await shows(p, p.getByRole('heading', { level: 1, name: 'Your account' }));
    expect(new URL(p.url()).pathname).toBe(`/t/${tenant.slug}/account`);
    await shows(p, p.getByText('You have not given any app access to your account.'));
    await checkPhoneScreen(p, 'public-account', p.getByRole('button', { name: 'Save profile' }));
  });
});
