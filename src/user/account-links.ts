import type { MessageKind } from '../mail/sector-messages';
import type { AccountLinkKind } from './account-link.repository';

/** Each account link's mail and the console page it opens (under PUBLIC_URL). */
export const ACCOUNT_LINKS: Record<AccountLinkKind, { mail: MessageKind; path: string }> = {
  'password-reset': { mail: 'passwordReset', path: '/reset-password' },
  'magic-link': { mail: 'magicLink', path: '/magic-link' },
  'email-verification': { mail: 'emailVerification', path: '/verify-email' },
  'email-change': { mail: 'emailChange', path: '/confirm-email' },
};

/** Email verification and email-change links live a day (a reset or sign-in link lives PasswordResetTimeoutMinutes). */
export const EMAIL_LINK_HOURS = 24;
