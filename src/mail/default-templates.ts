/**
 * Built-in templates, used wherever a sector leaves its own empty. Variables:
 * code, link, email, username, sectorName, expiresInMinutes, expiresInHours.
 * Free of imports: the console's template preview imports this file too, so both
 * show the same defaults.
 */

/** A mail's subject, text body and HTML body (Handlebars). */
export interface TemplateSet {
  subject: string;
  text: string;
  html: string;
}

export const INVITE_DEFAULTS: TemplateSet = {
  subject: 'You are invited to {{sectorName}}',
  text: [
    'Hello,',
    '',
    'You have been invited to {{sectorName}} as {{email}}.',
    'Accept the invitation and choose your password here:',
    '',
    '{{link}}',
    '',
    'The link expires in {{expiresInHours}} hours. If you did not expect this invitation, ignore this mail.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello,</p>',
    '<p>You have been invited to <strong>{{sectorName}}</strong> as {{email}}.</p>',
    '<p><a href="{{link}}">Accept the invitation</a></p>',
    '<p>The link expires in {{expiresInHours}} hours. If you did not expect this invitation, ignore this mail.</p>',
    '</body></html>',
    '',
  ].join('\n'),
};

export const OTP_DEFAULTS: TemplateSet = {
  subject: 'Your {{sectorName}} verification code',
  text: [
    'Hello {{username}},',
    '',
    'Your verification code is {{code}}.',
    'It expires in {{expiresInMinutes}} minutes. If you did not try to sign in, ignore this mail.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>Your verification code is <strong style="font-size: 1.4em; letter-spacing: 0.1em">{{code}}</strong>.</p>',
    '<p>It expires in {{expiresInMinutes}} minutes. If you did not try to sign in, ignore this mail.</p>',
    '</body></html>',
    '',
  ].join('\n'),
};

export const PASSWORD_RESET_DEFAULTS: TemplateSet = {
  subject: 'Reset your {{sectorName}} password',
  text: [
    'Hello {{username}},',
    '',
    'Someone asked to reset the password of your {{sectorName}} account. Choose a new one here:',
    '',
    '{{link}}',
    '',
    'The link expires in {{expiresInMinutes}} minutes. If you did not ask for this, ignore this mail; your password stays as it is.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>Someone asked to reset the password of your {{sectorName}} account.</p>',
    '<p><a href="{{link}}">Choose a new password</a></p>',
    '<p>The link expires in {{expiresInMinutes}} minutes. If you did not ask for this, ignore this mail; your password stays as it is.</p>',
    '</body></html>',
    '',
  ].join('\n'),
};

export const MAGIC_LINK_DEFAULTS: TemplateSet = {
  subject: 'Sign in to {{sectorName}}',
  text: [
    'Hello {{username}},',
    '',
    'Someone asked for a sign-in link to your {{sectorName}} account. Sign in here:',
    '',
    '{{link}}',
    '',
    'The link works once and expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this mail.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>Someone asked for a sign-in link to your {{sectorName}} account.</p>',
    '<p><a href="{{link}}">Sign in</a></p>',
    '<p>The link works once and expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this mail.</p>',
    '</body></html>',
    '',
  ].join('\n'),
};

export const EMAIL_VERIFICATION_DEFAULTS: TemplateSet = {
  subject: 'Confirm your {{sectorName}} email address',
  text: [
    'Hello {{username}},',
    '',
    'Confirm that {{email}} is your email address for {{sectorName}}:',
    '',
    '{{link}}',
    '',
    'The link expires in {{expiresInHours}} hours. If you did not ask for this, ignore this mail.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>Confirm that {{email}} is your email address for {{sectorName}}.</p>',
    '<p><a href="{{link}}">Confirm the address</a></p>',
    '<p>The link expires in {{expiresInHours}} hours. If you did not ask for this, ignore this mail.</p>',
    '</body></html>',
    '',
  ].join('\n'),
};

export const OTP_SMS_DEFAULT = '{{code}} is your {{sectorName}} verification code. It expires in {{expiresInMinutes}} minutes.';
