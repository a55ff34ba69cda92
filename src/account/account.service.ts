import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { TargetUserRef } from '../settings/request-targets';
import { AuthResultResponse } from '../auth/engine/auth.dto';
import { SignInEngine } from '../auth/engine/sign-in-engine';
import { hashSecretToken } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SectorMessages } from '../mail/sector-messages';
import { SectorScope, SectorScopes } from '../settings/sector-scope';
import { SectorSettingsEntity } from '../settings/sector-settings.entity';
import { newRoutedId, tenantOfRoutedId } from '../tenancy/routed-id';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDb } from '../tenancy/tenant-db';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { accountRef } from '../throttle/throttle-policy';
import { ThrottleService } from '../throttle/throttle.service';
import { PasswordHasher } from '../user/password-hasher';
import { passwordViolation } from '../user/password-policy';
import { UserEntity } from '../user/user.entity';
import { SignOutHooks } from '../user/sign-out-hooks';
import { UserRepository } from '../user/user.repository';
import { AccountLink, AccountLinkKind, AccountLinkRepository } from '../user/account-link.repository';
import { MagicLinkStrategy } from './magic-link.strategy';
import { ACCOUNT_LINKS, EMAIL_LINK_HOURS } from '../user/account-links';
import {
  EmailChangeConfirmedResponse,
  EmailVerificationSentResponse,
  EmailVerifiedResponse,
  ForgotPasswordDto,
  MagicLinkBeginDto,
  LinkSentResponse,
  ResetPasswordDto,
} from './dto/account.dto';

/** A password reset removes the passkeys and one-time-code factors added within this many hours. */
const RESET_REMOVES_FACTORS_ADDED_WITHIN_HOURS = 24;

const SENT: LinkSentResponse = { status: 'SENT' };

/**
 * Account recovery and proof of address by mailed single-use links: password
 * reset, magic-link sign-in (begin; the finish is a sign-in step on the engine),
 * email verification, confirmation of a new email. Requests that name an account
 * by login answer the same whether or not it exists, and are rate-limited per
 * account and address alike. Recovery links (reset, magic link) go only to an
 * address that is verified or was set by an admin of the sector, and work only
 * while it is still the user's address.
 */
@Injectable()
export class AccountService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly scopes: SectorScopes,
    private readonly users: UserRepository,
    private readonly links: AccountLinkRepository,
    private readonly messages: SectorMessages,
    private readonly throttle: ThrottleService,
    private readonly hasher: PasswordHasher,
    private readonly engine: SignInEngine,
    private readonly magicLink: MagicLinkStrategy,
    private readonly audit: AuditService,
    private readonly cache: AuthStateCache,
    private readonly signOut: SignOutHooks,
  ) {}

  /** Mails a reset link when the login names an account with an email; the answer is the same either way. */
  async forgotPassword(dto: ForgotPasswordDto, clientIp: string): Promise<LinkSentResponse> {
    const scope = await this.engine.scopeForSignIn(dto.sectorID);
    await this.mailLinkToLogin(scope, loginOf(dto), clientIp, 'password-reset');
    return SENT;
  }

  /**
   * Sets a new password from a reset link: the password policy first (a weak
   * password does not use the link up), then in one transaction the link is used
   * (only while its address is still the user's), the password set (raising the
   * credential version and revoking every session), the address marked verified,
   * and the passkeys and one-time-code factors added in the last 24 hours removed;
   * the user is then signed in through the engine.
   */
  async resetPassword(dto: ResetPasswordDto, clientIp: string): Promise<AuthResultResponse> {
    const { db, tokenHash, link } = await this.pendingLink(dto.token, 'password-reset');
    const user = await this.users.findById(db, link.userId);
    if (!user) throw linkInvalid();
    if (user.disabledAt) throw userDisabled();
    const violation = passwordViolation('newPassword', dto.newPassword, user.email);
    if (violation) throw DomainError.invalidArgument(`Invalid request: newPassword: ${violation.description}`, [violation]);
    const passwordHash = await this.hasher.hash(dto.newPassword);
    const after = await db.transaction(async (tx) => {
      const consumed = await this.links.consume(tx, tokenHash, 'password-reset', user.id);
      // A link mailed to an address the user no longer has proves nothing (the change also deletes it).
      if (!consumed || !(await this.users.markEmailVerified(tx, user.id, consumed.email))) throw linkInvalid();
      await this.users.setPassword(tx, user.id, passwordHash, null, null);
      const removed = await this.users.removeRecentFactors(tx, user.id, RESET_REMOVES_FACTORS_ADDED_WITHIN_HOURS);
      // The link proved the user: they are the actor of their own reset.
      await this.audit.record(tx, {
        type: 'password.reset',
        sectorId: user.sectorId,
        actor: { kind: 'user', id: user.id },
        target: { kind: 'user', id: user.id },
        details: { removedRecentPasskeys: removed.passkeys, removedRecentOtpFactors: removed.oneTimeCodeFactors },
      });
      return this.signOut.signedOut(tx, { kind: 'user', userId: user.id, exceptSessionId: null, userDeleted: false });
    });
    this.cache.forget(db.tenant, `u:${user.id}`);
    await after();
    const scope = await this.scopes.byId(user.sectorId);
    const updated = await this.users.findById(scope.db, user.id);
    if (!updated) throw linkInvalid();
    // A reset password is the password factor, recorded without a proof step.
    return this.engine.recordFactor(scope, updated, undefined, 'password', clientIp);
  }

  /** Mails a sign-in link where the sector allows magic-link sign-in; the answer is the same whether or not the account exists. */
  async beginMagicLink(dto: MagicLinkBeginDto, clientIp: string): Promise<LinkSentResponse> {
    const scope = await this.engine.scopeForSignIn(dto.sectorID);
    await assertMagicLinkEnabled(await scope.settings());
    await this.mailLinkToLogin(scope, loginOf(dto), clientIp, 'magic-link', dto.interactionID ? { interaction: dto.interactionID } : {});
    return SENT;
  }

  /** Signs in with a magic link: a first factor on the engine (MFA still applies). */
  async finishMagicLink(token: string, clientIp: string): Promise<AuthResultResponse> {
    const { db, tokenHash, link } = await this.pendingLink(token, 'magic-link');
    const user = await this.users.findById(db, link.userId);
    if (!user) throw linkInvalid();
    const scope = await this.scopes.byId(user.sectorId);
    await assertMagicLinkEnabled(await scope.settings());
    return this.engine.verify(this.magicLink, { scope, tx: undefined, user, login: user.username, clientIp }, { tokenHash });
  }

  /** Mails a verification link to the user's (unverified) address. */
  async beginEmailVerification(target: TargetUserRef, clientIp: string): Promise<EmailVerificationSentResponse> {
    const { scope } = target;
    const user = await this.users.findById(scope.db, target.id);
    if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
    if (user.email === '') throw DomainError.failedPrecondition(Reason.EMAIL_MISSING, 'The user has no email address to verify.');
    if (user.emailVerified) throw DomainError.failedPrecondition(Reason.EMAIL_ALREADY_VERIFIED, 'The email address is already verified.');
    await this.throttle.count({ tenantId: scope.route.tenant.id, sectorId: user.sectorId, account: accountRef(user.id, user.username), clientIp }, 'link');
    await this.mailLink(scope, user, 'email-verification');
    return { sub: user.id, status: 'SENT' };
  }

  /** Marks the address verified, only if it is still the one the link was sent to. */
  async finishEmailVerification(token: string): Promise<EmailVerifiedResponse> {
    const { db, tokenHash } = await this.pendingLink(token, 'email-verification');
    const link = await this.links.consume(db, tokenHash, 'email-verification');
    if (!link) throw linkInvalid();
    if (!(await this.users.markEmailVerified(db, link.userId, link.email))) {
      throw DomainError.failedPrecondition(Reason.EMAIL_CHANGED, 'The email address changed since the link was sent; ask for a new one.');
    }
    return { sub: link.userId, emailVerified: true };
  }

  /**
   * Follows an email-change link: in one transaction the link is used, the new
   * address checked still free in the sector (EMAIL_TAKEN otherwise; the link then
   * stays usable) and made the user's email, verified; what was mailed to the old
   * address dies with it (`UserRepository.update`). The username stays as it is.
   */
  async confirmEmailChange(token: string): Promise<EmailChangeConfirmedResponse> {
    const { db, tokenHash } = await this.pendingLink(token, 'email-change');
    const confirmed = await db.transaction(async (tx) => {
      const link = await this.links.consume(tx, tokenHash, 'email-change');
      if (!link) throw linkInvalid();
      const user = await this.users.findById(tx, link.userId);
      if (!user) throw linkInvalid();
      await this.users.lockSectorLogins(tx, user.sectorId);
      if (await this.users.loginTaken(tx, user.sectorId, [link.email], user.id)) {
        throw DomainError.alreadyExists(Reason.EMAIL_TAKEN, 'That email is already used in this sector.');
      }
      await this.users.update(tx, user.id, { email: link.email, emailVerified: true, emailAdminSet: false });
      // The link proved the user: they are the actor of their own change.
      await this.audit.record(tx, {
        type: 'user.updated',
        sectorId: user.sectorId,
        actor: { kind: 'user', id: user.id },
        target: { kind: 'user', id: user.id },
        details: { fields: ['email', 'emailVerified'], emailChangeConfirmed: true },
      });
      return { sub: user.id, email: link.email };
    });
    this.cache.forget(db.tenant, `u:${confirmed.sub}`);
    return { ...confirmed, emailVerified: true };
  }

  /**
   * Counts the request (per account and address, known or not) and mails the link
   * when the login names a user whose email is verified or was set by an admin.
   */
  private async mailLinkToLogin(scope: SectorScope, login: string, clientIp: string, kind: AccountLinkKind, linkParams: Record<string, string> = {}): Promise<void> {
    const user = await this.users.findByLogin(scope.db, scope.route.sectorId, login);
    await this.throttle.count({ tenantId: scope.route.tenant.id, sectorId: scope.route.sectorId, account: accountRef(user?.id, login), clientIp }, 'link');
    // A disabled user gets no recovery or sign-in link (the answer is the same).
    if (!user || user.disabledAt || user.email === '' || !(user.emailVerified || user.emailAdminSet)) return;
    await this.mailLink(scope, user, kind, linkParams);
  }

  /** Stores a new link of its kind (the user's earlier one dies) and queues its mail, in one transaction; `linkParams` go into the link's query too. */
  private async mailLink(scope: SectorScope, user: UserEntity, kind: AccountLinkKind, linkParams: Record<string, string> = {}): Promise<void> {
    const settings = await scope.settings();
    const minutes = kind === 'email-verification' ? EMAIL_LINK_HOURS * 60 : Number(settings.passwordResetTimeoutMinutes);
    const token = newRoutedId(scope.route.tenant.id);
    const expiresAt = new Date(Date.now() + minutes * 60_000);
    await this.messages.inTransaction(scope, async (tx: TenantDb) => {
      await this.links.replace(tx, kind, user.id, user.email, hashSecretToken(token), expiresAt);
      await this.messages.enqueue(tx, scope, ACCOUNT_LINKS[kind].mail, { email: user.email, locale: user.locale }, {
        link: await this.messages.linkUrl(tx, scope, ACCOUNT_LINKS[kind].path, { ...linkParams, token, type: kind }),
        email: user.email,
        username: user.username,
        expiresInMinutes: minutes,
        expiresInHours: Math.ceil(minutes / 60),
      });
    });
  }

  /** The tenant database and the unexpired link of a token: LINK_INVALID when unknown (or used), LINK_EXPIRED when past its expiry. */
  private async pendingLink(token: string, kind: AccountLinkKind): Promise<{ db: TenantDb; tokenHash: string; link: AccountLink }> {
    const tenantId = tenantOfRoutedId(token);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) throw linkInvalid();
    const db = await this.connections.db(tenant);
    const tokenHash = hashSecretToken(token);
    const link = await this.links.find(db, tokenHash, kind);
    if (!link) throw linkInvalid();
    if (link.expiresAt.getTime() <= Date.now()) {
      await this.links.deleteExpired(db, tokenHash);
      throw DomainError.failedPrecondition(Reason.LINK_EXPIRED, 'The link has expired; ask for a new one.');
    }
    return { db, tokenHash, link };
  }
}

function loginOf(dto: ForgotPasswordDto): string {
  const login = (dto.email ?? dto.username ?? '').trim();
  if (login === '') throw DomainError.invalidField('email', 'email or username is required');
  return login;
}

function userDisabled(): DomainError {
  return DomainError.permissionDenied('This account is disabled; ask an admin.', Reason.USER_DISABLED);
}

function linkInvalid(): DomainError {
  return DomainError.notFound(Reason.LINK_INVALID, 'The link is invalid or was already used.');
}

async function assertMagicLinkEnabled(settings: SectorSettingsEntity): Promise<void> {
  if (!settings.magicLinkLoginEnabled) {
    throw DomainError.permissionDenied('Magic-link sign-in is not enabled in this sector.', Reason.MAGIC_LINK_DISABLED);
  }
}
