import { loggableSubject } from './outbox-delivery';
import { builtInMail, MAIL_TEXTS } from './texts';
import { renderMail, renderSms, TemplateSet } from './mail-templates';

const EMPTY: TemplateSet = { subject: '', text: '', html: '' };
const INVITE_DEFAULTS = builtInMail('en', 'invite');
const OTP_DEFAULTS = builtInMail('en', 'code');
const PASSWORD_RESET_DEFAULTS = builtInMail('en', 'passwordReset');
const OTP_SMS_DEFAULT = MAIL_TEXTS.en.codeSms;

describe('renderMail', () => {
  it('uses the built-in defaults for empty (or blank) templates', () => {
    const mail = renderMail({ subject: '', text: '  ', html: '' }, INVITE_DEFAULTS, {
      brandName: 'Acme',
      email: 'ann@acme.test',
      link: 'https://acme.test/invite?t=abc',
      expiresInHours: 168,
    });
    expect(mail.subject).toBe('You are invited to Acme');
    expect(mail.text).toContain('You have been invited to Acme as ann@acme.test.');
    expect(mail.text).toContain('https://acme.test/invite?t=abc');
    expect(mail.text).toContain('expires in 168 hours');
    // Handlebars also escapes `=` (as &#x3D;), which browsers read back as `=`.
    expect(mail.html).toContain('<a href="https://acme.test/invite?t&#x3D;abc" style="');
    expect(mail.html).toContain('invited to Acme as ann@acme.test');
  });

  it("substitutes the sector's templates and every documented variable", () => {
    const templates: TemplateSet = {
      subject: '{{sectorName}}: code {{code}}',
      text: '{{username}} <{{email}}> {{code}} {{link}} {{expiresInMinutes}}m {{expiresInHours}}h',
      html: '<p>{{code}} for {{username}}</p>',
    };
    const mail = renderMail(templates, OTP_DEFAULTS, {
      code: '123456',
      link: 'https://x.test/l',
      email: 'bob@x.test',
      username: 'bob',
      sectorName: 'Shop',
      expiresInMinutes: 10,
      expiresInHours: 2,
    });
    expect(mail).toEqual({
      subject: 'Shop: code 123456',
      text: 'bob <bob@x.test> 123456 https://x.test/l 10m 2h',
      html: '<p>123456 for bob</p>',
    });
  });

  it('escapes values in HTML but not in the subject or text', () => {
    const mail = renderMail(
      { subject: 'Hi {{username}}', text: 'Hi {{username}}', html: '<p>Hi {{username}}</p>' },
      EMPTY,
      { username: '<script>alert("x")</script> & co' },
    );
    expect(mail.subject).toBe('Hi <script>alert("x")</script> & co');
    expect(mail.text).toBe('Hi <script>alert("x")</script> & co');
    expect(mail.html).toBe('<p>Hi &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co</p>');
    expect(mail.html).not.toContain('<script>');
  });

  it('escapes values in the default HTML templates too', () => {
    const mail = renderMail(EMPTY, PASSWORD_RESET_DEFAULTS, { username: '<b>eve</b>', link: 'https://x.test/r?a=1&b="2"' });
    expect(mail.html).toContain('Hello &lt;b&gt;eve&lt;/b&gt;,');
    expect(mail.html).toContain('href="https://x.test/r?a&#x3D;1&amp;b&#x3D;&quot;2&quot;"');
    expect(mail.text).toContain('https://x.test/r?a=1&b="2"');
  });

  it('renders unknown and missing variables empty', () => {
    const mail = renderMail(
      { subject: 'A{{nope}}B{{code}}C', text: '[{{nothing.here}}][{{link}}]', html: '<i>{{unknown}}</i>' },
      EMPTY,
      {},
    );
    expect(mail).toEqual({ subject: 'ABC', text: '[][]', html: '<i></i>' });
  });

  it('renders a template without placeholders as it is', () => {
    const templates = { subject: 'Welcome', text: 'Plain text, no variables.\n', html: '<p>Static &amp; fixed</p>' };
    expect(renderMail(templates, INVITE_DEFAULTS, { code: '1' })).toEqual(templates);
  });

  it('keeps the subject on one line whatever a value carries', () => {
    const mail = renderMail({ subject: 'Hi {{username}}', text: 'x', html: 'x' }, EMPTY, { username: 'a\r\nBcc: evil@x.test' });
    expect(mail.subject).toBe('Hi a Bcc: evil@x.test');
  });

  it('renders the same template repeatedly with different values (compile cache)', () => {
    const t = { subject: '{{code}}', text: '{{code}}', html: '{{code}}' };
    expect(renderMail(t, EMPTY, { code: '1' }).subject).toBe('1');
    expect(renderMail(t, EMPTY, { code: '2' }).subject).toBe('2');
  });
});

describe('renderSms', () => {
  it('uses the default for an empty template and does not escape', () => {
    expect(renderSms('', OTP_SMS_DEFAULT, { code: '987654', brandName: 'A&B', expiresInMinutes: 5 })).toBe(
      '987654 is your A&B verification code. It expires in 5 minutes.',
    );
  });

  it("uses the sector's template, unknown variables empty, no placeholders as is", () => {
    expect(renderSms('Code: {{code}}{{other}}', OTP_SMS_DEFAULT, { code: '<1>' })).toBe('Code: <1>');
    expect(renderSms('Static message', OTP_SMS_DEFAULT, { code: '1' })).toBe('Static message');
  });
});

describe('loggableSubject', () => {
  it('masks codes a template put into a subject', () => {
    expect(loggableSubject('Your code is 123456')).toBe('Your code is ••••••');
    expect(loggableSubject('Welcome to R&D 42')).toBe('Welcome to R&D 42');
  });
});
