import type { TemplateSet } from '../mail-templates';

/**
 * One built-in mail in one language, as parts the text and HTML bodies share (so the
 * two cannot drift apart): a greeting, paragraphs, the link's lead-in and button label
 * (for mails that carry a link), a closing paragraph. Handlebars throughout, with the
 * documented template variables; `{{code}}` is set off in the HTML body.
 */
export interface MailCopy {
  subject: string;
  greeting: string;
  body: string[];
  action?: { lead: string; label: string };
  after: string;
}

/** The message kinds with built-in texts. */
export type BuiltInKind = 'invite' | 'code' | 'passwordReset' | 'magicLink' | 'emailVerification' | 'emailChange' | 'emailChangeNotice' | 'factorAdded';

/** Everything a language ships: each mail, the one-time code's SMS, and the words callers pass as values. */
export interface LanguageTexts {
  mails: Record<BuiltInKind, MailCopy>;
  codeSms: string;
  /** The mails' footer line before the support address. */
  supportLine: string;
  /** Values some mails name (`change`, `factor`), by their English wording. */
  words: Record<'email address' | 'phone number' | 'and' | 'passkey' | 'authenticator app' | 'email codes' | 'SMS codes', string>;
}

const BUTTON =
  'display: inline-block; padding: 0.6em 1.2em; border-radius: 6px; background: {{primaryColor}}; color: {{buttonTextColor}}; text-decoration: none; font-weight: 600';

/** The text and HTML bodies of a mail from its parts, with the sector's logo, colour and support address. */
export function templateSet(copy: MailCopy, supportLine: string): TemplateSet {
  const text = [copy.greeting, '', ...copy.body];
  if (copy.action) text.push(copy.action.lead, '', '{{link}}');
  text.push('', copy.after, '{{#if supportEmail}}', '', `${supportLine} {{supportEmail}}`, '{{/if}}', '');
  const html = [
    '<!doctype html>',
    '<html lang="{{language}}"><body style="font-family: sans-serif; line-height: 1.5">',
    '{{#if logoURL}}',
    '<p><img src="{{logoURL}}" alt="{{brandName}}" height="48"></p>',
    '{{/if}}',
    `<p>${copy.greeting}</p>`,
    ...copy.body.map((p) => `<p>${p.replace('{{code}}', '<strong style="font-size: 1.4em; letter-spacing: 0.1em">{{code}}</strong>')}</p>`),
  ];
  if (copy.action) html.push(`<p><a href="{{link}}" style="${BUTTON}">${copy.action.label}</a></p>`);
  html.push(`<p>${copy.after}</p>`, '{{#if supportEmail}}', `<p style="color: #545d68">${supportLine} <a href="mailto:{{supportEmail}}">{{supportEmail}}</a></p>`, '{{/if}}', '</body></html>', '');
  return { subject: copy.subject, text: text.join('\n'), html: html.join('\n') };
}
