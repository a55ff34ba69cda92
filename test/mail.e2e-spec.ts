import { simpleParser } from 'mailparser';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TENANT_SCHEMA_VERSION } from '../migrations/tenant';
import { TenantConnections } from '../src/tenancy/tenant-connections';
import { TenantDb } from '../src/tenancy/tenant-db';
import { TenantDirectory } from '../src/tenancy/tenant-directory';
import { MailMessage, MailService } from '../src/mail/mail.service';
import { OutboxWorker } from '../src/outbox/outbox.worker';
import { provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { SmsGateway } from './support/sms-gateway';
import { FAST_WORKER, MAIL_FROM, startSmtpServer, TestSmtpServer } from './support/smtp';
import { startTestApp, TestApp } from './support/test-app';
import { eventually as waitUntil, sleep } from './support/wait';

/** The shared poll, with a probe that throws (a row not there yet) counting as "not yet". */
const eventually = <T>(probe: () => Promise<T | undefined | false>, timeoutMs?: number, what?: string) =>
  waitUntil(probe, timeoutMs, what, { retryOnError: true });

async function tenantDb(t: TestApp, tenantID: string): Promise<TenantDb> {
  const tenant = await t.app.get(TenantDirectory).requireTenant(tenantID);
  return t.app.get(TenantConnections).db(tenant);
}

/** Queues a mail the way a service does: inside a tenant transaction, then a kick after the commit. */
async function enqueueMail(t: TestApp, tenantID: string, message: MailMessage, kick = true): Promise<string> {
  const mail = t.app.get(MailService);
  const db = await tenantDb(t, tenantID);
  const id = await db.transaction((tx) => mail.enqueueMail(tx, message));
  if (kick) mail.kick(tenantID);
  return id;
}

interface OutboxRow {
  id: string;
  channel: string;
  tag: string;
  recipient: string;
  subject: string;
  body_text: string;
  body_html: string;
  status: string;
  attempts: number;
  last_error: string;
  locked_until: Date | null;
  sent_at: Date | null;
}

async function outboxRow(t: TestApp, tenantID: string, id: string): Promise<OutboxRow> {
  const [row] = await tenantSql(t, tenantID, 'SELECT * FROM outbox WHERE id = $1', [id]);
  return row as unknown as OutboxRow;
}

function uniqueSubject(prefix: string): string {
  return `${prefix} ${randomUUID().slice(0, 8)}`;
}

describe('mail and SMS through the outbox (SMTP and SMS gateway configured)', () => {
  let smtp: TestSmtpServer;
  let gateway: SmsGateway;
  let t: TestApp;
  let a: ProvisionedTenant;
  let b: ProvisionedTenant;
  const env = () => ({ SMTP_URL: smtp.url, MAIL_FROM, SMS_WEBHOOK_URL: gateway.url, ...FAST_WORKER });

  beforeAll(async () => {
    smtp = await startSmtpServer();
    gateway = await SmsGateway.start();
    t = await startTestApp({ env: env() });
    a = await provisionTenant(t);
    b = await provisionTenant(t);
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
    await gateway?.close();
  });

  it('delivers a mail to the SMTP server and marks the row sent', async () => {
    const subject = uniqueSubject('Welcome');
    const id = await enqueueMail(t, a.tenantID, {
      to: 'ann@example.test',
      subject,
      text: 'Hello Ann, your code is 123456.',
      html: '<p>Hello Ann, your code is <b>123456</b>.</p>',
      tag: 'test',
    });
    const mail = await smtp.waitForMail((m) => m.subject === subject);
    expect(mail).toEqual({
      envelopeTo: ['ann@example.test'],
      to: ['ann@example.test'],
      from: MAIL_FROM,
      subject,
      text: 'Hello Ann, your code is 123456.',
      html: '<p>Hello Ann, your code is <b>123456</b>.</p>',
      messageId: `<${id}@iam.test>`,
      raw: expect.any(String),
    });
    const row = await eventually(async () => {
      const r = await outboxRow(t, a.tenantID, id);
      return r.status === 'sent' && r;
    });
    expect(row).toEqual(
      expect.objectContaining({
        channel: 'email',
        tag: 'test',
        recipient: 'ann@example.test',
        subject,
        body_text: '',
        body_html: '',
        status: 'sent',
        attempts: 1,
        last_error: '',
        locked_until: null,
        sent_at: expect.any(Date),
      }),
    );
  });

  it('sends nothing for a transaction that rolled back', async () => {
    const mail = t.app.get(MailService);
    const db = await tenantDb(t, a.tenantID);
    const rolledBack = uniqueSubject('Rolled back');
    let id = '';
    await expect(
      db.transaction(async (tx) => {
        id = await mail.enqueueMail(tx, { to: 'ghost@example.test', subject: rolledBack, text: 'never', tag: 'test' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    mail.kick(a.tenantID);
    // A mail queued afterwards arrives; the rolled-back one never existed.
    const after = uniqueSubject('After');
    await enqueueMail(t, a.tenantID, { to: 'ann@example.test', subject: after, text: 'x', tag: 'test' });
    await smtp.waitForMail((m) => m.subject === after);
    expect(id).not.toBe('');
    expect(await tenantSql(t, a.tenantID, 'SELECT id FROM outbox WHERE id = $1', [id])).toEqual([]);
    expect(smtp.find((m) => m.subject === rolledBack)).toEqual([]);
  });

  it("delivers the mail of two tenants, each from the tenant's own outbox", async () => {
    const subjectA = uniqueSubject('For A');
    const subjectB = uniqueSubject('For B');
    const idA = await enqueueMail(t, a.tenantID, { to: 'a@a.test', subject: subjectA, text: 'a', tag: 'test' });
    const idB = await enqueueMail(t, b.tenantID, { to: 'b@b.test', subject: subjectB, text: 'b', tag: 'test' });
    const [mailA, mailB] = await Promise.all([smtp.waitForMail((m) => m.subject === subjectA), smtp.waitForMail((m) => m.subject === subjectB)]);
    expect([mailA.to, mailB.to]).toEqual([['a@a.test'], ['b@b.test']]);
    // Each row lives in its own tenant's database only.
    expect(await tenantSql(t, b.tenantID, 'SELECT id FROM outbox WHERE id = $1', [idA])).toEqual([]);
    expect(await tenantSql(t, a.tenantID, 'SELECT id FROM outbox WHERE id = $1', [idB])).toEqual([]);
  });

  it('finds un-kicked mail of every tenant in the periodic sweep, past a tenant whose database is unreachable', async () => {
    // A directory entry whose database does not exist, listed first by the sweep.
    const brokenId = randomUUID();
    await t.sql(
      `INSERT INTO tenants (id, slug, name, storage, database_name, kid, root_sector_id, schema_version, created_at)
       VALUES ($1, $2, 'Broken', 'pooled', $3, 'none', $4, $5, now() - interval '1 day')`,
      [brokenId, `broken-${brokenId.slice(0, 8)}`, `${t.databaseName}_t_missing`, randomUUID(), TENANT_SCHEMA_VERSION],
    );
    try {
      const subjectA = uniqueSubject('Swept A');
      const subjectB = uniqueSubject('Swept B');
      await enqueueMail(t, a.tenantID, { to: 'a@a.test', subject: subjectA, text: 'a', tag: 'test' }, false);
      await enqueueMail(t, b.tenantID, { to: 'b@b.test', subject: subjectB, text: 'b', tag: 'test' }, false);
      await Promise.all([smtp.waitForMail((m) => m.subject === subjectA, 5000), smtp.waitForMail((m) => m.subject === subjectB, 5000)]);
    } finally {
      await t.sql('DELETE FROM tenants WHERE id = $1', [brokenId]);
    }
  });

  it('posts an SMS as JSON to the gateway, retrying while it fails', async () => {
    gateway.failures = 2;
    const before = gateway.requests.length;
    const mail = t.app.get(MailService);
    const db = await tenantDb(t, a.tenantID);
    const id = await db.transaction((tx) => mail.enqueueSms(tx, { to: '+15550100', body: '424242 is your code', tag: 'otp' }));
    mail.kick(a.tenantID);
    const row = await eventually(async () => {
      const r = await outboxRow(t, a.tenantID, id);
      return r.status === 'sent' && r;
    });
    expect(row).toEqual(expect.objectContaining({ channel: 'sms', status: 'sent', attempts: 3, last_error: 'SMS gateway answered HTTP 500' }));
    const requests = gateway.requests.slice(before);
    expect(requests).toEqual(Array(3).fill({ contentType: 'application/json', body: { to: '+15550100', body: '424242 is your code' } }));
  });

  it('keeps mail during a mail server outage and delivers it exactly once when the server is back', async () => {
    await smtp.stop();
    const subject = uniqueSubject('During outage');
    const id = await enqueueMail(t, a.tenantID, { to: 'ann@example.test', subject, text: 'patience', tag: 'test' });
    const failing = await eventually(async () => {
      const r = await outboxRow(t, a.tenantID, id);
      return r.attempts >= 2 && r.locked_until === null && r;
    });
    expect(failing).toEqual(expect.objectContaining({ status: 'pending', body_text: 'patience', last_error: expect.stringMatching(/ECONNREFUSED/) }));

    await smtp.start();
    await smtp.waitForMail((m) => m.subject === subject);
    const sent = await eventually(async () => {
      const r = await outboxRow(t, a.tenantID, id);
      return r.status === 'sent' && r;
    });
    expect(sent.attempts).toBeGreaterThan(failing.attempts);
    // Longer than the longest retry delay and several polls: still one copy.
    await sleep(700);
    expect(smtp.find((m) => m.subject === subject)).toHaveLength(1);
  });

  it('resumes sending after a restart: mail queued while the server was down arrives from the new process', async () => {
    await smtp.stop();
    const subject = uniqueSubject('Across restart');
    const id = await enqueueMail(t, a.tenantID, { to: 'ann@example.test', subject, text: 'still here', tag: 'test' });
    // A failed attempt on record (a row only claimed when the process stops is given back untried).
    await eventually(async () => {
      const row = await outboxRow(t, a.tenantID, id);
      return row.attempts >= 1 && !!row.last_error && row.locked_until === null;
    });
    await t.close();

    await smtp.start();
    t = await startTestApp({ databaseName: t.databaseName, env: env() });
    // No kick in the new process: its start-up sweep finds the row.
    await smtp.waitForMail((m) => m.subject === subject);
    const row = await eventually(async () => {
      const r = await outboxRow(t, a.tenantID, id);
      return r.status === 'sent' && r;
    });
    expect(row.attempts).toBeGreaterThanOrEqual(2);
    expect(smtp.find((m) => m.subject === subject)).toHaveLength(1);
  });
});

describe('pending-mail hints in the main database (instances sharing one database)', () => {
  let smtp: TestSmtpServer;
  /** Queues mail, its worker stopped: B (and later C) must send it. */
  let a: TestApp;
  let b: TestApp;
  let c: TestApp | undefined;
  let tenant: ProvisionedTenant;
  /** The mail that fails in one test and is recovered in the next. */
  let failingId = '';
  // Polls every 100 ms; the sweep runs at start and then hourly; a failed delivery waits a minute.
  const env = () => ({
    SMTP_URL: smtp.url,
    MAIL_FROM,
    MAIL_POLL_INTERVAL_MS: '100',
    MAIL_RETRY_BASE_MS: '60000',
    MAIL_RETRY_MAX_MS: '60000',
    MAIL_SWEEP_INTERVAL_MS: '3600000',
  });
  const hints = () => a.sql<{ due_at: string }>('SELECT due_at::text AS due_at FROM outbox_pending WHERE tenant_id = $1', [tenant.tenantID]);
  const nextAttempt = async (id: string) =>
    (await tenantSql(a, tenant.tenantID, `SELECT next_attempt_at::text AS at, next_attempt_at > now() + interval '50 seconds' AS later FROM outbox WHERE id = $1`, [id]))[0] as {
      at: string;
      later: boolean;
    };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    a = await startTestApp({ env: env() });
    b = await startTestApp({ databaseName: a.databaseName, env: env() });
    // A's worker stops as at shutdown; A keeps serving and queuing.
    await a.app.get(OutboxWorker).onModuleDestroy();
    // Provisioned after B started: B's start-up sweep never saw this tenant.
    tenant = await provisionTenant(a);
  });

  afterAll(async () => {
    await c?.close();
    await b?.close();
    await a?.close();
    await smtp?.stop();
  });

  it("delivers mail queued through another instance within a few polls, opening no other tenant's pool, and deletes the hint", async () => {
    const poolsBefore = b.app.get(TenantConnections).openCount;
    const subject = uniqueSubject('Through the hint');
    const id = await enqueueMail(a, tenant.tenantID, { to: 'hal@example.test', subject, text: 'queued by A, sent by B', tag: 'test' });
    const mail = await smtp.waitForMail((m) => m.subject === subject, 1500);
    expect(mail.messageId).toBe(`<${id}@iam.test>`);
    const row = await eventually(async () => {
      const r = await outboxRow(a, tenant.tenantID, id);
      return r.status === 'sent' && r;
    });
    expect(row).toEqual(expect.objectContaining({ status: 'sent', attempts: 1, last_error: '' }));
    expect(b.app.get(TenantConnections).openCount).toBe(poolsBefore + 1);
    await eventually(async () => (await hints()).length === 0, 2000, 'hint deleted');
  });

  it('leaves the hint of a failed delivery due at the next attempt, and looks no earlier', async () => {
    await smtp.stop();
    const subject = uniqueSubject('Hint of a retry');
    failingId = await enqueueMail(a, tenant.tenantID, { to: 'hal@example.test', subject, text: 'later', tag: 'test' });
    const failed = await eventually(async () => {
      const r = await outboxRow(a, tenant.tenantID, failingId);
      return r.attempts === 1 && r.locked_until === null && r;
    });
    expect(failed).toEqual(expect.objectContaining({ status: 'pending', last_error: expect.stringMatching(/ECONNREFUSED/) }));
    const next = await nextAttempt(failingId);
    expect(next.later).toBe(true);
    await eventually(async () => (await hints())[0]?.due_at === next.at, 2000, 'hint due at the next attempt');

    await sleep(1000); // ten polls of B
    expect(await hints()).toEqual([{ due_at: next.at }]);
    expect((await outboxRow(a, tenant.tenantID, failingId)).attempts).toBe(1);
  });

  it('recovers a lost hint in the start-up sweep of a new instance', async () => {
    // Lost as by a crash between a commit and its kick; the retry is due.
    await a.sql('DELETE FROM outbox_pending WHERE tenant_id = $1', [tenant.tenantID]);
    await tenantSql(a, tenant.tenantID, 'UPDATE outbox SET next_attempt_at = now() WHERE id = $1', [failingId]);
    await sleep(1000); // ten polls of B, which has no way to know
    expect((await outboxRow(a, tenant.tenantID, failingId)).attempts).toBe(1);

    c = await startTestApp({ databaseName: a.databaseName, env: env() });
    // C's start-up sweep tries again (the mail server is still down) and writes the hint back.
    const retried = await eventually(async () => {
      const r = await outboxRow(a, tenant.tenantID, failingId);
      return r.attempts === 2 && r.locked_until === null && r;
    });
    expect(retried.status).toBe('pending');
    const next = await nextAttempt(failingId);
    expect(next.later).toBe(true);
    await eventually(async () => (await hints())[0]?.due_at === next.at, 2000, 'hint written back');

    // The minute passes, the mail server is back: the hint gets the mail sent, then goes.
    await smtp.start();
    await tenantSql(a, tenant.tenantID, 'UPDATE outbox SET next_attempt_at = now() WHERE id = $1', [failingId]);
    await a.sql('UPDATE outbox_pending SET due_at = now() WHERE tenant_id = $1', [tenant.tenantID]);
    await eventually(async () => (await outboxRow(a, tenant.tenantID, failingId)).status === 'sent', 2000, 'sent');
    await eventually(async () => (await hints()).length === 0, 2000, 'hint deleted');
    expect(smtp.find((m) => m.messageId === `<${failingId}@iam.test>`)).toHaveLength(1);
  });
});

describe('mail through the outbox of a schema-mode tenant', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ tenancyMode: 'schema', env: { SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER } });
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it("delivers from the tenant's own schema", async () => {
    const tenant = await provisionTenant(t);
    const subject = uniqueSubject('Schema');
    const id = await enqueueMail(t, tenant.tenantID, { to: 'sam@example.test', subject, text: 'from a schema', tag: 'test' });
    expect((await smtp.waitForMail((m) => m.subject === subject)).text.trim()).toBe('from a schema');
    await eventually(async () => (await outboxRow(t, tenant.tenantID, id)).status === 'sent');
    // The row is in the tenant's schema, not in the platform tenant's tables.
    expect(await t.sql('SELECT id FROM public.outbox WHERE id = $1', [id])).toEqual([]);
  });
});

describe('mail and SMS through the outbox (no SMTP_URL, no SMS_WEBHOOK_URL)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: FAST_WORKER });
  });

  afterAll(() => t?.close());

  it('writes mail as an .eml file and SMS as a JSON file to DATA_DIR/outbox', async () => {
    const platform = await t.app.get(TenantDirectory).platform();
    const mail = t.app.get(MailService);
    const db = await tenantDb(t, platform.id);
    const subject = uniqueSubject('Offline');
    const [mailId, smsId] = await db.transaction(async (tx) => [
      await mail.enqueueMail(tx, { to: 'zoe@example.test', subject, text: 'Your link: https://iam.test/x', html: '<p>link</p>', tag: 'invite' }),
      await mail.enqueueSms(tx, { to: '+15550199', body: '111222 is your code', tag: 'otp' }),
    ]);
    mail.kick(platform.id);

    const outbox = join(t.config.dataDir, 'outbox');
    const eml = await eventually(async () => existsSync(join(outbox, `${mailId}.eml`)) && readFileSync(join(outbox, `${mailId}.eml`)));
    expect(eml.toString('utf8')).toContain(`Subject: ${subject}`);
    const parsed = await simpleParser(eml);
    expect({ subject: parsed.subject, text: parsed.text?.trim(), html: parsed.html, from: parsed.from?.text, to: (parsed.to as { text: string }).text }).toEqual({
      subject,
      text: 'Your link: https://iam.test/x',
      html: '<p>link</p>',
      from: 'no-reply@localhost',
      to: 'zoe@example.test',
    });

    const smsFile = join(outbox, `${smsId}.sms.json`);
    await eventually(async () => existsSync(smsFile));
    expect(JSON.parse(readFileSync(smsFile, 'utf8'))).toEqual({ to: '+15550199', body: '111222 is your code' });
    await eventually(async () => (await outboxRow(t, platform.id, mailId)).status === 'sent' && (await outboxRow(t, platform.id, smsId)).status === 'sent');
  });
});
