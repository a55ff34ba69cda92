import type { LanguageTexts } from './mail-copy';

export const en: LanguageTexts = {
  mails: {
    invite: {
      subject: 'You are invited to {{brandName}}',
      greeting: 'Hello,',
      body: ['You have been invited to {{brandName}} as {{email}}.'],
      action: { lead: 'Accept the invitation and choose your password here:', label: 'Accept the invitation' },
      after: 'The link expires in {{duration expiresInHours "hour"}}. If you did not expect this invitation, ignore this mail.',
    },
    code: {
      subject: 'Your {{brandName}} verification code',
      greeting: 'Hello {{username}},',
      body: ['Your verification code is {{code}}.'],
      after: 'It expires in {{duration expiresInMinutes "minute"}}. If you did not try to sign in, ignore this mail.',
    },
    passwordReset: {
      subject: 'Reset your {{brandName}} password',
      greeting: 'Hello {{username}},',
      body: ['Someone asked to reset the password of your {{brandName}} account.'],
      action: { lead: 'Choose a new one here:', label: 'Choose a new password' },
      after: 'The link expires in {{duration expiresInMinutes "minute"}}. If you did not ask for this, ignore this mail; your password stays as it is.',
    },
    magicLink: {
      subject: 'Sign in to {{brandName}}',
      greeting: 'Hello {{username}},',
      body: ['Someone asked for a sign-in link to your {{brandName}} account.'],
      action: { lead: 'Sign in here:', label: 'Sign in' },
      after: 'The link works once and expires in {{duration expiresInMinutes "minute"}}. If you did not ask for it, ignore this mail.',
    },
    emailVerification: {
      subject: 'Confirm your {{brandName}} email address',
      greeting: 'Hello {{username}},',
      body: ['Confirm that {{email}} is your email address for {{brandName}}.'],
      action: { lead: 'Confirm it here:', label: 'Confirm the address' },
      after: 'The link expires in {{duration expiresInHours "hour"}}. If you did not ask for this, ignore this mail.',
    },
    emailChange: {
      subject: 'Confirm your new {{brandName}} email address',
      greeting: 'Hello {{username}},',
      body: ['You asked to use {{email}} as your email address for {{brandName}}.'],
      action: { lead: 'Confirm it here:', label: 'Confirm the new address' },
      after: 'Until you do, your old address stays in use. The link expires in {{duration expiresInHours "hour"}}. If you did not ask for this, ignore this mail.',
    },
    emailChangeNotice: {
      subject: 'Your {{brandName}} contact details are changing',
      greeting: 'Hello {{username}},',
      body: ['Someone signed in to your {{brandName}} account asked to change its {{change}}.'],
      after: 'If this was you, there is nothing to do. If it was not, change your password and sign out your other sessions from your account page now.',
    },
    factorAdded: {
      subject: 'A new sign-in method was added to your {{brandName}} account',
      greeting: 'Hello {{username}},',
      body: ['A new sign-in method ({{factor}}) was added to your {{brandName}} account.'],
      after: 'If this was you, there is nothing to do. If it was not, remove it from your account page, change your password and sign out your other sessions now.',
    },
  },
  codeSms: '{{code}} is your {{brandName}} verification code. It expires in {{duration expiresInMinutes "minute"}}.',
  supportLine: 'Questions? Write to',
  words: {
    'email address': 'email address',
    'phone number': 'phone number',
    and: 'and',
    passkey: 'passkey',
    'authenticator app': 'authenticator app',
    'email codes': 'email codes',
    'SMS codes': 'SMS codes',
  },
};
