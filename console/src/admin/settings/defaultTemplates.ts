/**
 * The service's built-in templates, used by the preview when a sector leaves a
 * template empty (the service then sends these): the very module the service
 * renders from, so the two cannot drift apart.
 */
export { INVITE_DEFAULTS, OTP_DEFAULTS, OTP_SMS_DEFAULT, PASSWORD_RESET_DEFAULTS, type TemplateSet } from '../../../../src/mail/default-templates';
