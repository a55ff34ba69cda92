import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Language → template setting's wire name (OTPEmailSubject, …) → template. */
export type LocalizedTemplates = Record<string, Record<string, string>>;

/** Security settings of one sector; int64 columns come back from pg as strings. */
@Entity({ name: 'sector_settings' })
export class SectorSettingsEntity {
  @PrimaryColumn('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('boolean', { name: 'mfa_required' }) mfaRequired: boolean;
  @Column('boolean', { name: 'self_sign_up_allowed' }) selfSignUpAllowed: boolean;
  @Column('boolean', { name: 'allow_user_creation_for_non_admins' }) allowUserCreationForNonAdmins: boolean;
  @Column('boolean', { name: 'allow_user_read_for_non_admins' }) allowUserReadForNonAdmins: boolean;
  @Column('text', { name: 'otp_email_subject' }) otpEmailSubject: string;
  @Column('text', { name: 'otp_email_body_template' }) otpEmailBodyTemplate: string;
  @Column('text', { name: 'otp_email_body_html_template' }) otpEmailBodyHtmlTemplate: string;
  @Column('text', { name: 'otp_sms_template' }) otpSmsTemplate: string;
  @Column('text', { name: 'invite_email_subject' }) inviteEmailSubject: string;
  @Column('text', { name: 'invite_email_body_template' }) inviteEmailBodyTemplate: string;
  @Column('text', { name: 'invite_email_body_html_template' }) inviteEmailBodyHtmlTemplate: string;
  @Column('bigint', { name: 'invite_expiration_hours' }) inviteExpirationHours: string;
  @Column('bigint', { name: 'access_token_duration' }) accessTokenDuration: string;
  @Column('text', { name: 'password_reset_email_subject' }) passwordResetEmailSubject: string;
  @Column('text', { name: 'password_reset_email_body_template' }) passwordResetEmailBodyTemplate: string;
  @Column('text', { name: 'password_reset_email_body_html_template' }) passwordResetEmailBodyHtmlTemplate: string;
  @Column('bigint', { name: 'password_reset_timeout_minutes' }) passwordResetTimeoutMinutes: string;
  @Column('text', { name: 'webauthn_rp_id' }) webauthnRpId: string;
  @Column('text', { name: 'webauthn_rp_display_name' }) webauthnRpDisplayName: string;
  @Column('text', { name: 'webauthn_rp_origins', array: true }) webauthnRpOrigins: string[];
  @Column('text', { name: 'magic_link_url' }) magicLinkUrl: string;
  @Column('boolean', { name: 'webauthn_debug' }) webauthnDebug: boolean;
  @Column('boolean', { name: 'magic_link_login_enabled' }) magicLinkLoginEnabled: boolean;
  @Column('bigint', { name: 'session_lifetime_seconds' }) sessionLifetimeSeconds: string;
  @Column('bigint', { name: 'session_idle_timeout_seconds' }) sessionIdleTimeoutSeconds: string;
  @Column('bigint', { name: 'audit_retention_days' }) auditRetentionDays: string;
  /** A user a directory creates over SCIM with an email is mailed an invitation (else nothing is mailed). */
  @Column('boolean', { name: 'scim_send_invitations', default: false }) scimSendInvitations: boolean;
  @Column('text', { name: 'brand_display_name', default: '' }) brandDisplayName: string;
  @Column('text', { name: 'brand_primary_color', default: '' }) brandPrimaryColor: string;
  @Column('text', { name: 'brand_background_color', default: '' }) brandBackgroundColor: string;
  @Column('text', { name: 'brand_primary_color_dark', default: '' }) brandPrimaryColorDark: string;
  @Column('text', { name: 'brand_background_color_dark', default: '' }) brandBackgroundColorDark: string;
  @Column('text', { name: 'terms_url', default: '' }) termsUrl: string;
  @Column('text', { name: 'privacy_url', default: '' }) privacyUrl: string;
  @Column('text', { name: 'support_email', default: '' }) supportEmail: string;
  /** A shipped language's code (src/common/languages.ts): the sector's pages and mails when the user's is unknown. */
  @Column('text', { name: 'default_language', default: 'en' }) defaultLanguage: string;
  /** Language → template setting (wire name) → template: the sector's mail templates in its other languages. */
  @Column('jsonb', { name: 'localized_templates', default: {} }) localizedTemplates: LocalizedTemplates;
  /** The uploaded logo's and favicon's versions ('' = none): part of their public addresses. */
  @Column('text', { name: 'brand_logo_version', default: '' }) brandLogoVersion: string;
  @Column('text', { name: 'brand_favicon_version', default: '' }) brandFaviconVersion: string;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
