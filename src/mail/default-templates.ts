/**
 * Built-in templates, used wherever a sector leaves its own empty. Variables:
 * code, link, email, username, sectorName, expiresInMinutes, expiresInHours.
 * The console's template preview shows them through the preview endpoint
 * (SectorMessages.preview), which renders with the mails' own code.
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
    'The link expires in {{plural expiresInHours "hour" "hours"}}. If you did not expect this invitation, ignore this mail.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello,</p>',
    '<p>You have been invited to <strong>{{sectorName}}</strong> as {{email}}.</p>',
    '<p><a href="{{link}}">Accept the invitation</a></p>',
    '<p>The link expires in {{plural expiresInHours "hour" "hours"}}. If you did not expect this invitation, ignore this mail.</p>',
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
    'It expires in {{plural expiresInMinutes "minute" "minutes"}}. If you did not try to sign in, ignore this mail.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>Your verification code is <strong style="font-size: 1.4em; letter-spacing: 0.1em">{{code}}</strong>.</p>',
    '<p>It expires in {{plural expiresInMinutes "minute" "minutes"}}. If you did not try to sign in, ignore this mail.</p>',
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
    'The link expires in {{plural expiresInMinutes "minute" "minutes"}}. If you did not ask for this, ignore this mail; your password stays as it is.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>Someone asked to reset the password of your {{sectorName}} account.</p>',
    '<p><a href="{{link}}">Choose a new password</a></p>',
    '<p>The link expires in {{plural expiresInMinutes "minute" "minutes"}}. If you did not ask for this, ignore this mail; your password stays as it is.</p>',
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
    'The link works once and expires in {{plural expiresInMinutes "minute" "minutes"}}. If you did not ask for it, ignore this mail.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>Someone asked for a sign-in link to your {{sectorName}} account.</p>',
    '<p><a href="{{link}}">Sign in</a></p>',
    '<p>The link works once and expires in {{plural expiresInMinutes "minute" "minutes"}}. If you did not ask for it, ignore this mail.</p>',
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
    'The link expires in {{plural expiresInHours "hour" "hours"}}. If you did not ask for this, ignore this mail.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>Confirm that {{email}} is your email address for {{sectorName}}.</p>',
    '<p><a href="{{link}}">Confirm the address</a></p>',
    '<p>The link expires in {{plural expiresInHours "hour" "hours"}}. If you did not ask for this, ignore this mail.</p>',
    '</body></html>',
    '',
  ].join('\n'),
};

/** Sent to a new address the user chose themselves: the change applies only once this link is followed. */
export const EMAIL_CHANGE_DEFAULTS: TemplateSet = {
  subject: 'Confirm your new {{sectorName}} email address',
  text: [
    'Hello {{username}},',
    '',
    'You asked to use {{email}} as your email address for {{sectorName}}. Confirm it here:',
    '',
    '{{link}}',
    '',
    'Until you do, your old address stays in use. The link expires in {{plural expiresInHours "hour" "hours"}}. If you did not ask for this, ignore this mail.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>You asked to use {{email}} as your email address for {{sectorName}}.</p>',
    '<p><a href="{{link}}">Confirm the new address</a></p>',
    '<p>Until you do, your old address stays in use. The link expires in {{plural expiresInHours "hour" "hours"}}. If you did not ask for this, ignore this mail.</p>',
    '</body></html>',
    '',
  ].join('\n'),
};

/** Sent to the old address when a change of address (or phone number) was asked for. */
export const EMAIL_CHANGE_NOTICE_DEFAULTS: TemplateSet = {
  subject: 'Your {{sectorName}} contact details are changing',
  text: [
    'Hello {{username}},',
    '',
    'Someone signed in to your {{sectorName}} account asked to change its {{change}}.',
    '',
    'If this was you, there is nothing to do. If it was not, change your password and sign out your other sessions from your account page now.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>Someone signed in to your {{sectorName}} account asked to change its {{change}}.</p>',
    '<p>If this was you, there is nothing to do. If it was not, change your password and sign out your other sessions from your account page now.</p>',
    '</body></html>',
    '',
  ].join('\n'),
};

/** Sent when a passkey or a second factor is added to the account. */
export const FACTOR_ADDED_DEFAULTS: TemplateSet = {
  subject: 'A new sign-in method was added to your {{sectorName}} account',
  text: [
    'Hello {{username}},',
    '',
    'A new sign-in method ({{factor}}) was added to your {{sectorName}} account.',
    '',
    'If this was you, there is nothing to do. If it was not, remove it from your account page, change your password and sign out your other sessions now.',
    '',
  ].join('\n'),
  html: [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello {{username}},</p>',
    '<p>A new sign-in method ({{factor}}) was added to your {{sectorName}} account.</p>',
    '<p>If this was you, there is nothing to do. If it was not, remove it from your account page, change your password and sign out your other sessions now.</p>',
    '</body></html>',
    '',
  ].join('\n'),
};

export const OTP_SMS_DEFAULT = '{{code}} is your {{sectorName}} verification code. It expires in {{plural expiresInMinutes "minute" "minutes"}}.';
