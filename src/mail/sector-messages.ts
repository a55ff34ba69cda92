import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { linkBase, sectorPagePath } from '../settings/magic-link-url';
import { SectorRepository } from '../sector/sector.repository';
import { SectorScope } from '../settings/sector-scope';
import { SectorSettingsEntity } from '../settings/sector-settings.entity';
import { TenantDb } from '../tenancy/tenant-db';
import { EMAIL_CHANGE_DEFAULTS, EMAIL_CHANGE_NOTICE_DEFAULTS, EMAIL_VERIFICATION_DEFAULTS, FACTOR_ADDED_DEFAULTS, INVITE_DEFAULTS, MAGIC_LINK_DEFAULTS, OTP_DEFAULTS, OTP_SMS_DEFAULT, PASSWORD_RESET_DEFAULTS } from './default-templates';
import { RenderedMail, renderMail, renderSms, TemplateSet, TemplateVars } from './mail-templates';
import { MailService } from './mail.service';

/** The messages a sector sends, each with the sector's templates and the built-in defaults. */
export type MessageKind = 'invite' | 'code' | 'passwordReset' | 'magicLink' | 'emailVerification' | 'emailChange' | 'emailChangeNotice' | 'factorAdded';

/** Kinds without sector templates (always the built-in defaults). */
const NO_SECTOR_TEMPLATES = (): TemplateSet => ({ subject: '', text: '', html: '' });

interface MessageTemplates {
  mail: (s: SectorSettingsEntity) => TemplateSet;
  mailDefaults: TemplateSet;
  sms?: (s: SectorSettingsEntity) => string;
  smsDefault?: string;
}

const TEMPLATES: Record<MessageKind, MessageTemplates> = {
  invite: {
    mail: (s) => ({ subject: s.inviteEmailSubject, text: s.inviteEmailBodyTemplate, html: s.inviteEmailBodyHtmlTemplate }),
    mailDefaults: INVITE_DEFAULTS,
  },
  code: {
    mail: (s) => ({ subject: s.otpEmailSubject, text: s.otpEmailBodyTemplate, html: s.otpEmailBodyHtmlTemplate }),
    mailDefaults: OTP_DEFAULTS,
    sms: (s) => s.otpSmsTemplate,
    smsDefault: OTP_SMS_DEFAULT,
  },
  passwordReset: {
    mail: (s) => ({ subject: s.passwordResetEmailSubject, text: s.passwordResetEmailBodyTemplate, html: s.passwordResetEmailBodyHtmlTemplate }),
    mailDefaults: PASSWORD_RESET_DEFAULTS,
  },
  magicLink: { mail: NO_SECTOR_TEMPLATES, mailDefaults: MAGIC_LINK_DEFAULTS },
  emailVerification: { mail: NO_SECTOR_TEMPLATES, mailDefaults: EMAIL_VERIFICATION_DEFAULTS },
  emailChange: { mail: NO_SECTOR_TEMPLATES, mailDefaults: EMAIL_CHANGE_DEFAULTS },
  emailChangeNotice: { mail: NO_SECTOR_TEMPLATES, mailDefaults: EMAIL_CHANGE_NOTICE_DEFAULTS },
  factorAdded: { mail: NO_SECTOR_TEMPLATES, mailDefaults: FACTOR_ADDED_DEFAULTS },
};

/** The page (and link type) a previewed message's sample link opens, as the real message's would. */
const PREVIEW_LINKS: Partial<Record<MessageKind, { page: string; params?: Record<string, string> }>> = {
  invite: { page: '/invite' },
  passwordReset: { page: '/reset-password', params: { type: 'password-reset' } },
  magicLink: { page: '/magic-link', params: { type: 'magic-link' } },
  emailVerification: { page: '/verify-email', params: { type: 'email-verification' } },
  emailChange: { page: '/confirm-email', params: { type: 'email-change' } },
};

/** Every message kind, in a stable order (request validation, the OpenAPI enum). */
export const MESSAGE_KINDS = Object.keys(TEMPLATES) as MessageKind[];

/** Templates a preview renders instead of the sector's (absent: the sector's; empty: the built-in default). */
export interface PreviewTemplates {
  subject?: string;
  text?: string;
  html?: string;
  sms?: string;
}

/** A rendered preview: the mail, and the SMS for kinds that have one. */
export type RenderedPreview = RenderedMail & { sms?: string };

const EMPTY_SET: TemplateSet = { subject: '', text: '', html: '' };

/** Runs a render; a template that fails at render time (an unknown helper, say) is INVALID_ARGUMENT on its field. */
function rendered(field: string, render: () => string): string {
  try {
    return render();
  } catch (err) {
    throw DomainError.invalidField(field, `cannot be rendered (${(err as Error).message.split('\n')[0]})`);
  }
}

/** Where a message goes: an email address, or a phone number for an SMS. */
export type Recipient = { email: string } | { phone: string };

/**
 * The one place that turns a sector's message into an outbox row: it renders the
 * sector's template of that kind (or the default when empty) with the sector's
 * name, and writes it in the caller's database transaction, so a message exists
 * exactly when the change that causes it does. `inTransaction` runs such a change
 * and wakes the outbox worker once it has committed.
 */
@Injectable()
export class SectorMessages {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly mail: MailService,
    private readonly sectors: SectorRepository,
  ) {}

  /**
   * The URL a mailed link opens: the sector's MagicLinkURL where it is still
   * allowed (https on PUBLIC_URL's origin or one of the sector's allowedOrigins;
   * a stored value the rules no longer allow is not used), else the sector's own
   * page `PUBLIC_URL/t/<tenant>/<sector><defaultPath>`; with `params` (the link's
   * token, its type) added to the query.
   */
  async linkUrl(db: TenantDb, scope: SectorScope, defaultPath: string, params: Record<string, string>): Promise<string> {
    const settings = await scope.settings();
    const sector = await this.sectors.findById(db, scope.route.sectorId);
    const page = sectorPagePath(scope.route.tenant.slug, sector?.slug ?? '', defaultPath);
    const base = linkBase(settings, this.config.publicUrl, page, sector?.allowedOrigins ?? [], this.config.nodeEnv === 'production');
    const url = new URL(base);
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return url.href;
  }

  async enqueue(tx: TenantDb, scope: SectorScope, kind: MessageKind, to: Recipient, vars: TemplateVars): Promise<void> {
    const templates = TEMPLATES[kind];
    const settings = await scope.settings();
    const sector = await this.sectors.findById(tx, scope.route.sectorId);
    const data = { ...vars, sectorName: sector?.name ?? '' };
    if ('phone' in to) {
      if (!templates.sms || templates.smsDefault === undefined) throw new Error(`${kind} messages have no SMS template`);
      await this.mail.enqueueSms(tx, { to: to.phone, body: renderSms(templates.sms(settings), templates.smsDefault, data), tag: kind === 'code' ? 'otp' : kind });
      return;
    }
    const rendered = renderMail(templates.mail(settings), templates.mailDefaults, data);
    await this.mail.enqueueMail(tx, { to: to.email, ...rendered, tag: kind === 'code' ? 'otp' : kind });
  }

  /**
   * Renders a message of `kind` as `enqueue` would, with sample values instead of
   * a real recipient and link (code 123456, the kind's link with a sample token, the sector's
   * name, expiries from its settings) and `overrides` in place of the sector's
   * templates. A template that does not render is INVALID_ARGUMENT naming its field.
   */
  async preview(scope: SectorScope, kind: MessageKind, overrides: PreviewTemplates): Promise<RenderedPreview> {
    const templates = TEMPLATES[kind];
    if (overrides.sms !== undefined && !templates.sms) throw DomainError.invalidField('sms', `${kind} messages have no SMS template`);
    const settings = await scope.settings();
    const sector = await this.sectors.findById(scope.db, scope.route.sectorId);
    const data: TemplateVars = {
      code: '123456',
      link: await this.linkUrl(scope.db, scope, PREVIEW_LINKS[kind]?.page ?? '/magic-link', { token: 'EXAMPLE-TOKEN', ...PREVIEW_LINKS[kind]?.params }),
      email: 'ada@example.com',
      username: 'ada',
      sectorName: sector?.name ?? '',
      expiresInMinutes: kind === 'code' ? Math.ceil(this.config.otpCodeTtlSeconds / 60) : Number(settings.passwordResetTimeoutMinutes),
      expiresInHours: Number(settings.inviteExpirationHours),
      change: 'email address',
      factor: 'passkey',
    };
    const stored = templates.mail(settings);
    const mail: TemplateSet = { subject: overrides.subject ?? stored.subject, text: overrides.text ?? stored.text, html: overrides.html ?? stored.html };
    // Each part rendered on its own (the others as defaults), so a failure names its field.
    const part = <K extends keyof TemplateSet>(field: K): string =>
      rendered(field, () => renderMail({ ...EMPTY_SET, [field]: mail[field] }, templates.mailDefaults, data)[field]);
    const out: RenderedPreview = { subject: part('subject'), text: part('text'), html: part('html') };
    if (templates.sms && templates.smsDefault !== undefined) {
      const sms = overrides.sms ?? templates.sms(settings);
      const smsDefault = templates.smsDefault;
      out.sms = rendered('sms', () => renderSms(sms, smsDefault, data));
    }
    return out;
  }

  /** Runs `work` in one transaction of the scope's tenant, then wakes the outbox worker for what it queued. */
  async inTransaction<T>(scope: SectorScope, work: (tx: TenantDb) => Promise<T>): Promise<T> {
    const result = await scope.db.transaction(work);
    this.mail.kick(scope.route.tenant.id);
    return result;
  }
}
