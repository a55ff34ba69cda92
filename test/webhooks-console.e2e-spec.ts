/**
 * The console's Webhooks screen, in a real browser: Debian's chromium through
 * playwright-core, against the real service (serving the built console from
 * dist/console) on a real PostgreSQL, delivering to a real receiver on 127.0.0.1
 * (OUTBOUND_ALLOW_PRIVATE_NETWORKS=true lets the service reach it over http).
 *
 * A tenant's first admin signs in to /console and, in the default sector:
 * - finds no webhooks (an empty state that says what to do); is told beside the
 *   field when no event is chosen and when the service refuses the URL; creates
 *   an endpoint and sees its signing secret once (focused, with a copy button),
 *   never again in the page or the API's list;
 * - sends a test event from the endpoint's row: its delivery log opens and shows
 *   the delivery succeeded, with the event id the receiver got as `webhook-id`,
 *   signed with the secret shown;
 * - rotates the secret after a confirmation that says the old one signs for
 *   24 hours: the new one is shown once, and the next delivery verifies with each;
 * - sees a failing delivery as pending with the receiver's HTTP 503 and its next
 *   attempt (the endpoint "failing since"), then, once the receiver answers
 *   again and the log is refreshed, as succeeded; filters the log by state;
 * - edits the endpoint to all events, disables it, and deletes it after a
 *   confirmation: the list and the API follow.
 * The screens and dialogs are checked with axe (no serious or critical
 * violations) and photographed to test-artifacts/screenshots/console-webhook*.png.
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, checkAccessibleScreen, newConsolePage, requireConsoleBuild, signInToConsole, startBrowser } from './support/browser';
import { ProvisionedTenant, provisionTenant } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';
import { verifyDelivery, WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(120_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const WHSEC = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const MSG_ID = /^msg_[A-Za-z0-9_-]{22}$/;

interface ListedWebhook {
  id: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  disabledReason: string;
  failingSince: string;
}

describe('console: a sector’s webhooks, their secrets and delivery log, in chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenant: ProvisionedTenant;
  let receiver: WebhookReceiver;
  let url = '';
  let secret = '';
  let rotated = '';

  const bearer = () => ({ Authorization: `Bearer ${tenant.adminToken}` });
  const listed = async () => {
    const res = await t.http().get(`/api/v1/sectors/${tenant.rootSectorID}/webhooks`).set(bearer());
    expect(res.status).toBe(200);
    return res.body as { webhooks: ListedWebhook[] };
  };
  const nav = () => page.getByRole('navigation', { name: /console/i });
  const table = () => page.getByRole('table', { name: 'Webhooks of this sector' });
  const row = () => table().getByRole('row').filter({ hasText: url });
  const log = () => page.getByRole('region', { name: `Deliveries to ${url}` });
  const logRows = () => log().getByRole('table').getByRole('row');
  const notice = () => page.getByRole('region', { name: /^(Webhook created|New signing secret)$/ });

  const checkScreen = (name: string) => checkAccessibleScreen(page, `console-${name}`, SHOTS, { dark: false });

  /** The text of the focused element when it is an h2 (false otherwise). */
  const focusedHeading = () => page.evaluate(() => (globalThis as any).document.activeElement?.tagName === 'H2' && (globalThis as any).document.activeElement.textContent);

  /** The delivery log's row of an event (by its id), its cells' texts by column header. */
  async function deliveryRow(eventID: string): Promise<Record<string, string> | undefined> {
    const headers = await log().getByRole('table').getByRole('columnheader').allInnerTexts();
    for (const r of await logRows().all()) {
      const cells = await r.getByRole('cell').allInnerTexts();
      if (cells.some((c) => c.trim() === eventID)) return Object.fromEntries(headers.map((h, i) => [h.trim(), (cells[i] ?? '').trim()]));
    }
    return undefined;
  }

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    receiver = await WebhookReceiver.start();
    receiver.answerAlways({ status: 204, body: '' });
    url = receiver.url('hooks/iam');
    // Retries every 2 s (ten of them) so a failing delivery is seen pending, then succeeding, within the spec.
    t = await startTestApp({ env: { ...NO_THROTTLE, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: Array(10).fill('2s').join(',') } });
    tenant = await provisionTenant(t);
    browser = await startBrowser();
    ({ context, page } = await newConsolePage(browser, t.baseUrl));
  });

  afterAll(() => closeAll([context, browser], t, receiver));

  it('creates an endpoint, refused beside its fields first, and shows its secret once', async () => {
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
    // Tokens live in the page's memory, so screens are reached through the navigation, never a reload.
    await nav().getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('This sector has no webhooks yet.').waitFor();
    await checkScreen('webhooks-empty');

    await page.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    const urlField = form.getByLabel(/^Endpoint URL/);
    const events = form.getByRole('group', { name: 'Events' });
    // No event chosen: said in the group, nothing sent.
    await urlField.fill(`${url}#fragment`);
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await events.getByText('Choose at least one event, or all events.').waitFor();
    expect((await listed()).webhooks).toEqual([]);

    // The service's URL rules answer beside the field.
    await events.getByRole('checkbox', { name: 'user.created' }).check();
    await events.getByRole('checkbox', { name: 'user.disabled' }).check();
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await form.getByRole('alert').filter({ hasText: 'The webhook was not created.' }).waitFor();
    await eventually(async () => (await urlField.getAttribute('aria-invalid')) === 'true', 10_000, 'the URL’s violation');
    const described = ((await urlField.getAttribute('aria-describedby')) ?? '').split(' ').pop();
    await expect(page.locator(`[id="${described}"]`).innerText()).resolves.toMatch(/fragment/);
    await checkScreen('webhook-new-invalid');

    await urlField.fill(url);
    await form.getByLabel('Description').fill('Billing system');
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await form.waitFor({ state: 'detached' });

    // The secret, once, focused, with a copy button.
    await notice().waitFor();
    await eventually(async () => (await focusedHeading()) === 'Webhook created', 10_000, 'focus on the new secret');
    secret = (await page.getByTestId('webhook-secret').innerText()).trim();
    expect(secret).toMatch(WHSEC);
    await notice().getByRole('button', { name: 'Copy the secret' }).waitFor();
    await row().getByText('Billing system').waitFor();
    await expect(row().locator('code').allInnerTexts()).resolves.toEqual([url, 'user.created', 'user.disabled']);
    await row().getByText('Enabled', { exact: true }).waitFor();
    await checkScreen('webhook-created');

    const { webhooks } = await listed();
    expect(webhooks).toEqual([expect.objectContaining({ url, events: ['user.created', 'user.disabled'], description: 'Billing system', enabled: true, failingSince: '0' })]);
    expect(JSON.stringify(webhooks)).not.toContain(secret);

    await notice().getByRole('button', { name: 'Done, hide it' }).click();
    await notice().waitFor({ state: 'detached' });
    await expect(page.locator('body').innerText()).resolves.not.toContain(secret);
  });

  it('sends a test event from the row: the log shows it succeeded, as the receiver got it, signed with the secret shown', async () => {
    await row().getByRole('button', { name: `Send test event to ${url}` }).click();
    const toast = page.getByRole('status').filter({ hasText: /^Test event msg_\S+ queued for / }).first();
    await toast.waitFor();
    const eventID = /Test event (msg_\S+) queued/.exec(await toast.innerText())?.[1] ?? '';
    expect(eventID).toMatch(MSG_ID);

    await log().waitFor();
    const got = await receiver.waitFor((b, r) => b.type === 'webhook.test' && r.id === eventID, 15_000, 'the test event');
    expect(verifyDelivery(secret, got)).toEqual(expect.objectContaining({ type: 'webhook.test' }));

    // The log refreshes itself while a delivery is due.
    const delivered = await eventually(async () => {
      const r = await deliveryRow(eventID);
      return r?.Status === 'Succeeded' ? r : undefined;
    }, 15_000, 'the test delivery succeeded in the log');
    expect(delivered).toEqual(expect.objectContaining({ 'Event type': 'webhook.test', 'Event ID': eventID, Attempts: '1', 'Last answer': 'HTTP 204', 'Next attempt': 'none' }));
    expect(delivered.Finished).not.toBe('not yet');
    await checkScreen('webhook-deliveries');
  });

  it('rotates the secret after a confirmation that says the old one signs for 24 hours; a failing delivery shows, then succeeds on refresh', async () => {
    await row().getByRole('button', { name: `Rotate secret of ${url}` }).click();
    const dialog = page.getByRole('dialog', { name: `Rotate the secret of ${url}?` });
    await dialog.waitFor();
    await expect(dialog.innerText()).resolves.toMatch(/24 hours/);
    await expect(dialog.getByRole('button', { name: 'Cancel' }).evaluate((b) => b === (globalThis as any).document.activeElement)).resolves.toBe(true);
    await checkScreen('webhook-rotate-dialog');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await notice().waitFor();
    await expect(notice().innerText()).resolves.toMatch(/previous one keeps signing beside it for 24 hours/);
    rotated = (await page.getByTestId('webhook-secret').innerText()).trim();
    expect(rotated).toMatch(WHSEC);
    expect(rotated).not.toBe(secret);
    await notice().getByRole('button', { name: 'Done, hide it' }).click();

    // The receiver fails: the delivery waits, with the answer and the next attempt shown.
    receiver.answerAlways({ status: 503 });
    const before = receiver.requests.length;
    await log().getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('status').filter({ hasText: /^Test event msg_\S+ queued for / }).first().waitFor();
    const first = await receiver.waitFor((b, r) => b.type === 'webhook.test' && r.n > before, 15_000, 'the failing test event');
    const eventID = first.id;
    expect(eventID).toMatch(MSG_ID);
    // Both secrets sign during the rotation.
    expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyDelivery(rotated, first)).toEqual(expect.objectContaining({ type: 'webhook.test' }));
    expect(verifyDelivery(secret, first)).toEqual(expect.objectContaining({ type: 'webhook.test' }));

    await log().getByRole('button', { name: 'Refresh' }).click();
    const failing = await eventually(async () => {
      const r = await deliveryRow(eventID);
      return r?.Status === 'Pending' && r['Last answer'].startsWith('HTTP 503') ? r : undefined;
    }, 15_000, 'the failing delivery pending with HTTP 503');
    expect(failing['Next attempt']).not.toBe('none');
    expect(failing.Finished).toBe('not yet');
    // The failed attempt marked the endpoint failing in the same transaction; a refresh reads the list again too.
    await log().getByRole('button', { name: 'Refresh' }).click();
    await row().getByText(/^Failing since /).waitFor();
    await checkScreen('webhook-delivery-failing');

    // The receiver answers again: a refresh shows the retry succeeded, and the endpoint no longer failing.
    receiver.answerAlways({ status: 204, body: '' });
    await receiver.waitFor((_b, r) => r.id === eventID && r.n > first.n, 15_000, 'the retry');
    await eventually(async () => {
      await log().getByRole('button', { name: 'Refresh' }).click();
      return (await deliveryRow(eventID))?.Status === 'Succeeded';
    }, 20_000, 'the retried delivery succeeded after a refresh');
    await eventually(async () => (await row().getByText(/^Failing since /).count()) === 0, 10_000, 'no longer failing');
    expect((await deliveryRow(eventID))?.Attempts).not.toBe('1');

    // The filter by state.
    await log().getByLabel('Status').selectOption({ label: 'Failed' });
    await log().getByText('No failed deliveries.').waitFor();
    await log().getByLabel('Status').selectOption({ label: 'Succeeded' });
    await eventually(async () => (await logRows().count()) === 3, 10_000, 'the two succeeded deliveries');
  });

  it('edits the endpoint to all events, disables it, and deletes it after a confirmation', async () => {
    await row().getByRole('button', { name: `Edit webhook ${url}` }).click();
    const form = page.getByRole('form', { name: `Edit webhook ${url}` });
    await form.waitFor();
    await expect(form.getByLabel(/^Endpoint URL/).inputValue()).resolves.toBe(url);
    await expect(form.getByRole('checkbox', { name: 'user.created' }).isChecked()).resolves.toBe(true);
    await form.getByRole('checkbox', { name: 'All events' }).check();
    await expect(form.getByRole('checkbox', { name: 'user.created' }).count()).resolves.toBe(0);
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByRole('status').filter({ hasText: `Webhook ${url} saved.` }).first().waitFor();
    await form.waitFor({ state: 'detached' });
    await row().getByText('All events').waitFor();
    expect((await listed()).webhooks).toEqual([expect.objectContaining({ events: ['*'], enabled: true })]);

    await row().getByRole('button', { name: `Disable webhook ${url}` }).click();
    await page.getByRole('status').filter({ hasText: `Webhook ${url} disabled.` }).first().waitFor();
    await row().getByText('Disabled', { exact: true }).waitFor();
    await row().getByRole('button', { name: `Enable webhook ${url}` }).waitFor();
    expect((await listed()).webhooks).toEqual([expect.objectContaining({ enabled: false, disabledReason: '' })]);
    await checkScreen('webhooks-disabled');

    await row().getByRole('button', { name: `Delete webhook ${url}` }).click();
    const dialog = page.getByRole('dialog', { name: `Delete webhook ${url}?` });
    await dialog.waitFor();
    await expect(dialog.innerText()).resolves.toMatch(/nothing more is sent to it/i);
    await checkScreen('webhook-delete-dialog');
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByRole('status').filter({ hasText: `Webhook ${url} deleted.` }).first().waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('This sector has no webhooks yet.').waitFor();
    await expect(log().count()).resolves.toBe(0);
    expect((await listed()).webhooks).toEqual([]);
  });
});
