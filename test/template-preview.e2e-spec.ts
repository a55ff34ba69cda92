/**
 * POST /api/v1/sectors/{sectorID}/templates/preview renders a sector's message
 * with sample values through the same renderer the mails use: templates given in
 * the body replace the sector's, absent ones are the sector's (or the built-in
 * default when empty); a template that does not compile is a field violation.
 * Sector admins and the sector's API tokens may preview; members may not.
 */
import { expectWireError, fieldViolations } from './support/contract';
import { createSector, provisionTenant, ProvisionedTenant, seedUser, uniqueSlug } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

/** The sample link of a previewed message: the kind's real page in the sector (`PUBLIC_URL/t/{tenant}/{sector}/…`) with a sample token. */
function sampleLink(tenantSlug: string, sectorSlug: string, page: string, type?: string): string {
  return `http://iam.test/t/${tenantSlug}/${sectorSlug}${page}?token=EXAMPLE-TOKEN${type ? `&type=${type}` : ''}`;
}

/** A value as Handlebars escapes it in HTML. */
const htmlEscaped = (value: string) => value.replace(/&/g, '&amp;').replace(/=/g, '&#x3D;');

/** The built-in invitation mail, rendered for a sector with the sample values (`link` its sample link). */
function defaultInvite(link: string, sectorName: string, hours = 168) {
  return {
    subject: `You are invited to ${sectorName}`,
    text: [
      'Hello,',
      '',
      `You have been invited to ${sectorName} as ada@example.com.`,
      'Accept the invitation and choose your password here:',
      '',
      link,
      '',
      `The link expires in ${hours} hours. If you did not expect this invitation, ignore this mail.`,
      '',
    ].join('\n'),
    html: [
      '<!doctype html>',
      '<html lang="en"><body style="font-family: sans-serif; line-height: 1.5">',
      '<p>Hello,</p>',
      `<p>You have been invited to ${sectorName} as ada@example.com.</p>`,
      // The button in the sector's primary colour (the theme's here), its label in the colour that contrasts with it.
      `<p><a href="${htmlEscaped(link)}" style="display: inline-block; padding: 0.6em 1.2em; border-radius: 6px; background: #1f5fbf; color: #ffffff; text-decoration: none; font-weight: 600">Accept the invitation</a></p>`,
      `<p>The link expires in ${hours} hours. If you did not expect this invitation, ignore this mail.</p>`,
      '</body></html>',
      '',
    ].join('\n'),
  };
}

describe('template preview', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let sectorID: string;
  let sectorName: string;
  let sectorSlug: string;
  /** The invitation's sample link in the sector. */
  let inviteLink: string;

  beforeAll(async () => {
    t = await startTestApp();
    a = await provisionTenant(t);
    sectorSlug = uniqueSlug('s');
    sectorName = `Sector ${sectorSlug}`;
    sectorID = await createSector(t, a.adminToken, sectorSlug);
    inviteLink = sampleLink(a.slug, sectorSlug, '/invite');
  });
  afterAll(() => t.close());

  const preview = (sector: string, token: string, body: object) =>
    t.http().post(`/api/v1/sectors/${sector}/templates/preview`).set('Authorization', `Bearer ${token}`).send(body);

  it('renders the built-in invitation for a sector without templates, with the sample values', async () => {
    const res = await preview(sectorID, a.adminToken, { kind: 'invite' });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: defaultInvite(inviteLink, sectorName) });
  });

  it('renders the templates given, values escaped in HTML only, and the SMS of a code message', async () => {
    const res = await preview(sectorID, a.adminToken, {
      kind: 'code',
      subject: 'Code for {{sectorName}}\nnow',
      text: '{{code}} for {{username}} <{{email}}>, {{expiresInMinutes}} min',
      html: '<p>{{code}} for {{email}} & <b>{{sectorName}}</b></p>',
      sms: '{{code}} ({{expiresInMinutes}} min)',
    });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        subject: `Code for ${sectorName} now`,
        text: '123456 for ada <ada@example.com>, 10 min',
        html: `<p>123456 for ada@example.com & <b>${sectorName}</b></p>`,
        sms: '123456 (10 min)',
      },
    });
  });

  it('an omitted template is the sector’s own; an empty one is the built-in default; expiries follow the settings', async () => {
    const put = await t
      .http()
      .put(`/api/v1/sectors/${sectorID}/settings`)
      .set('Authorization', `Bearer ${a.adminToken}`)
      .send({ InviteEmailSubject: 'Join {{sectorName}} ({{expiresInHours}}h)', InviteEmailBodyTemplate: 'Stored text {{link}}', InviteExpirationHours: '48' });
    expect(put.status).toBe(200);
    const stored = await preview(sectorID, a.adminToken, { kind: 'invite', html: '<i>{{username}}</i>' });
    expect({ status: stored.status, body: stored.body }).toEqual({
      status: 200,
      body: { subject: `Join ${sectorName} (48h)`, text: `Stored text ${inviteLink}`, html: '<i>ada</i>' },
    });
    const cleared = await preview(sectorID, a.adminToken, { kind: 'invite', subject: '', text: '  ' });
    expect({ status: cleared.status, body: cleared.body }).toEqual({ status: 200, body: defaultInvite(inviteLink, sectorName, 48) });
  });

  it('a template that does not compile is INVALID_ARGUMENT with a violation on its field', async () => {
    const res = await preview(sectorID, a.adminToken, { kind: 'invite', text: 'Hello {{#if email}}unclosed' });
    expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['text'] });
    expect(fieldViolations(res.body)).toEqual([{ field: 'text', description: expect.stringMatching(/^must be a valid Handlebars template \(/) }]);
  });

  it('a template that fails while rendering (an unknown helper) is a violation on its field too', async () => {
    const res = await preview(sectorID, a.adminToken, { kind: 'code', sms: '{{shout code}}' });
    expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['sms'] });
    expect(fieldViolations(res.body)).toEqual([{ field: 'sms', description: 'cannot be rendered (Missing helper: "shout")' }]);
  });

  it('an unknown kind, or an SMS for a mail-only kind, is refused on its field', async () => {
    const kind = await preview(sectorID, a.adminToken, { kind: 'welcome' });
    expectWireError(kind, 400, 3, 'VALIDATION_FAILED', { fields: ['kind'] });
    const sms = await preview(sectorID, a.adminToken, { kind: 'invite', sms: '{{code}}' });
    expectWireError(sms, 400, 3, 'VALIDATION_FAILED', { fields: ['sms'] });
  });

  it('a member is PERMISSION_DENIED (ROLE_REQUIRED)', async () => {
    const email = `member.${uniqueSlug('m')}@example.test`;
    await seedUser(t, a.tenantID, sectorID, { email, password: 'member-password' });
    const token = await t.login(email, 'member-password', sectorID);
    const res = await preview(sectorID, token, { kind: 'invite' });
    expectWireError(res, 403, 7, 'ROLE_REQUIRED');
  });

  it('an API token of the sector may preview, as it may read the settings', async () => {
    const created = await t.http().post(`/api/v1/sectors/${sectorID}/tokens`).set('Authorization', `Bearer ${a.adminToken}`).send({ name: 'preview' });
    expect(created.status).toBe(200);
    const magic = sampleLink(a.slug, sectorSlug, '/magic-link', 'magic-link');
    const res = await preview(sectorID, created.body.token as string, { kind: 'magicLink', subject: '{{sectorName}} link', text: '{{link}}', html: '<a href="{{link}}">{{expiresInMinutes}}</a>' });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { subject: `${sectorName} link`, text: magic, html: `<a href="${htmlEscaped(magic)}">15</a>` },
    });
  });

  it("shows each kind's real link: the sector's own page of that kind, with a sample token", async () => {
    const pages: Record<string, [string, string?]> = {
      invite: ['/invite'],
      passwordReset: ['/reset-password', 'password-reset'],
      magicLink: ['/magic-link', 'magic-link'],
      emailVerification: ['/verify-email', 'email-verification'],
      emailChange: ['/confirm-email', 'email-change'],
    };
    for (const [kind, [page, type]] of Object.entries(pages)) {
      const res = await preview(sectorID, a.adminToken, { kind, text: '{{link}}' });
      expect({ kind, status: res.status, text: res.body.text }).toEqual({ kind, status: 200, text: sampleLink(a.slug, sectorSlug, page, type) });
    }
  });
});
