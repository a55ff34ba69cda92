import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { linkBase, sectorPagePath } from '../settings/magic-link-url';
import { SectorRepository } from '../sector/sector.repository';
import { SectorScope } from '../settings/sector-scope';
import { SectorSettingsEntity } from '../settings/sector-settings.entity';
import { TenantDb } from '../tenancy/tenant-db';
import { RenderedMail, renderMail, renderSms, TemplateSet, TemplateVars } from './mail-templates';
import { MailService } from './mail.service';
import { builtInMail, inLanguage, MAIL_TEXTS } from './texts';
import type { BuiltInKind } from './texts/mail-copy';
import type { Language } from '../common/languages';
import { defaultLanguageOf, hasSmsTemplate, mailLanguage, sectorTemplates } from './mail-language';
import { labelColorOn, THEME } from '../settings/brand-colors';
import { brandAssetUrl } from '../settings/settings.mapper';

/** The messages a sector sends, each with the sector's templates and the built-in texts of every language. */
export type MessageKind = BuiltInKind;

/** The page (and link type) a previewed message's sample link opens, as the real message's would. */
const PREVIEW_LINKS: Partial<Record<MessageKind, { page: string; params?: Record<string, string> }>> = {
  invite: { page: '/invite' },
  passwordReset: { page: '/reset-password', params: { type: 'password-reset' } },
  magicLink: { page: '/magic-link', params: { type: 'magic-link' } },
  emailVerification: { page: '/verify-email', params: { type: 'email-verification' } },
  emailChange: { page: '/confirm-email', params: { type: 'email-change' } },
};

/** Every message kind, in a stable order (request validation, the OpenAPI enum). */
export const MESSAGE_KINDS: MessageKind[] = ['invite', 'code', 'passwordReset', 'magicLink', 'emailVerification', 'emailChange', 'emailChangeNotice', 'factorAdded'];

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

/** Where a message goes: an email address, or a phone number for an SMS; with the recipient's `locale` when known. */
export type Recipient = ({ email: string } | { phone: string }) & { locale?: string };

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

  /**
   * Queues a message of `kind` in `tx`, in the recipient's language (their `locale` when
   * the service ships it, else the sector's DefaultLanguage): the sector's own template
   * for that language where it has one, else the built-in text of that language, with
   * the sector's name, logo and colour.
   */
  async enqueue(tx: TenantDb, scope: SectorScope, kind: MessageKind, to: Recipient, vars: TemplateVars): Promise<void> {
    const settings = await scope.settings();
    const language = mailLanguage(to.locale, settings);
    const data = await this.messageVars(tx, scope, settings, language, vars);
    const own = sectorTemplates(settings, kind, language);
    const tag = kind === 'code' ? 'otp' : kind;
    if ('phone' in to) {
      if (!hasSmsTemplate(kind)) throw new Error(`${kind} messages have no SMS template`);
      await this.mail.enqueueSms(tx, { to: to.phone, body: renderSms(own.sms, MAIL_TEXTS[language].codeSms, data), tag });
      return;
    }
    await this.mail.enqueueMail(tx, { to: to.email, ...renderMail(own, builtInMail(language, kind), data), tag });
  }

  /** The variables every message gets besides the caller's: the language, the sector's name and look, and the caller's words in that language. */
  private async messageVars(db: TenantDb, scope: SectorScope, settings: SectorSettingsEntity, language: Language, vars: TemplateVars): Promise<TemplateVars> {
    const sector = await this.sectors.findById(db, scope.route.sectorId);
    const primaryColor = settings.brandPrimaryColor || THEME.light.accent;
    return {
      ...vars,
      ...(vars.change !== undefined && { change: inLanguage(language, vars.change) }),
      ...(vars.factor !== undefined && { factor: inLanguage(language, vars.factor) }),
      language,
      sectorName: sector?.name ?? '',
      brandName: settings.brandDisplayName || sector?.name || '',
      logoURL: brandAssetUrl(this.config.publicUrl, scope.route.sectorId, 'logo', settings.brandLogoVersion),
      primaryColor,
      buttonTextColor: labelColorOn(primaryColor),
      supportEmail: settings.supportEmail,
      termsURL: settings.termsUrl,
      privacyURL: settings.privacyUrl,
    };
  }

  /**
   * Renders a message of `kind` as `enqueue` would, with sample values instead of
   * a real recipient and link (code 123456, the kind's link with a sample token, the sector's
   * name, expiries from its settings) and `overrides` in place of the sector's
   * templates. A template that does not render is INVALID_ARGUMENT naming its field.
   */
  async preview(scope: SectorScope, kind: MessageKind, overrides: PreviewTemplates, language?: Language): Promise<RenderedPreview> {
    const hasSms = hasSmsTemplate(kind);
    if (overrides.sms !== undefined && !hasSms) throw DomainError.invalidField('sms', `${kind} messages have no SMS template`);
    const settings = await scope.settings();
    const lang = language ?? defaultLanguageOf(settings);
    const data = await this.messageVars(scope.db, scope, settings, lang, {
      code: '123456',
      link: await this.linkUrl(scope.db, scope, PREVIEW_LINKS[kind]?.page ?? '/magic-link', { token: 'EXAMPLE-TOKEN', ...PREVIEW_LINKS[kind]?.params }),
      email: 'ada@example.com',
      username: 'ada',
      expiresInMinutes: kind === 'code' ? Math.ceil(this.config.otpCodeTtlSeconds / 60) : Number(settings.passwordResetTimeoutMinutes),
      expiresInHours: Number(settings.inviteExpirationHours),
      change: 'email address',
      factor: 'passkey',
    });
    const stored = sectorTemplates(settings, kind, lang);
    const builtIn = builtInMail(lang, kind);
    const mail: TemplateSet = { subject: overrides.subject ?? stored.subject, text: overrides.text ?? stored.text, html: overrides.html ?? stored.html };
    // Each part rendered on its own (the others as defaults), so a failure names its field.
    const part = <K extends keyof TemplateSet>(field: K): string => rendered(field, () => renderMail({ ...EMPTY_SET, [field]: mail[field] }, builtIn, data)[field]);
    const out: RenderedPreview = { subject: part('subject'), text: part('text'), html: part('html') };
    if (hasSms) {
      const sms = overrides.sms ?? stored.sms;
      out.sms = rendered('sms', () => renderSms(sms, MAIL_TEXTS[lang].codeSms, data));
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
