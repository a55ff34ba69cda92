import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isUserAdminOver } from '../access/role-matrix';
import { Principal } from '../access/principal';
import { TargetUserRef } from '../settings/request-targets';
import { hashSecretToken } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { newRoutedId } from '../tenancy/routed-id';
import { TenantDb } from '../tenancy/tenant-db';
import { pageInfo, paging } from '../common/wire/paging';
import { unixSeconds } from '../common/wire/wire';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { ThrottleService } from '../throttle/throttle.service';
import { accountRef } from '../throttle/throttle-policy';
import { SectorSettingsEntity } from '../settings/sector-settings.entity';
import { SectorScope } from '../settings/sector-scope';
import { SectorMessages } from '../mail/sector-messages';
import {
  ChangePasswordDto,
  CreateUserDto,
  UserRefResponse,
  ListUsersQuery,
  ListUsersResponse,
  ResendInviteResponse,
  UpdateUserDto,
  UpdateUserResponse,
  UserProfileResponse,
} from './dto/user.dto';
import { newUser } from './new-user';
import { PasswordHasher } from './password-hasher';
import { passwordViolation } from './password-policy';
import { profilePatch, toUserListItem, toUserProfile } from './user.mapper';
import { AfterSignOut, SignOutHooks } from './sign-out-hooks';
import { UserRepository } from './user.repository';
import { UserEntity } from './user.entity';
import { AuditService } from '../audit/audit.service';
import { AccountLinkRepository } from './account-link.repository';
import { ACCOUNT_LINKS, EMAIL_LINK_HOURS } from './account-links';
import { StepUpService } from './step-up.service';

interface Invitation {
  token: string;
  tokenHash: string;
  expiresAt: Date;
}

/** User administration and the profile page's operations. */
@Injectable()
export class UserService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly messages: SectorMessages,
    private readonly throttle: ThrottleService,
    private readonly audit: AuditService,
    private readonly cache: AuthStateCache,
    private readonly stepUp: StepUpService,
    private readonly links: AccountLinkRepository,
    private readonly signOut: SignOutHooks,
  ) {}

  /**
   * Creates a user; without a password the user is invited: the row and its
   * invite mail are written in one transaction, the mail sent after commit.
   */
  async create(scope: SectorScope, caller: Principal, dto: CreateUserDto): Promise<UserProfileResponse> {
    return toUserProfile(await this.createUser(scope, dto, isUserAdminOver(caller, scope.route)));
  }

  /** Self sign-up: an ordinary user with a password, never an admin, email unverified. */
  signUp(scope: SectorScope, dto: CreateUserDto & { password: string }): Promise<UserEntity> {
    return this.createUser(scope, { ...dto, isAdmin: false, profile: { ...dto.profile, emailVerified: undefined, phoneNumberVerified: undefined } }, false);
  }

  private async createUser(scope: SectorScope, dto: CreateUserDto, admin: boolean): Promise<UserEntity> {
    if (dto.isAdmin && !admin) {
      throw DomainError.permissionDenied('Only admins may create admins.', Reason.ADMIN_REQUIRED_TO_GRANT_ADMIN);
    }
    const email = dto.email.trim();
    if (dto.profile?.email !== undefined && dto.profile.email.trim().toLowerCase() !== email.toLowerCase()) {
      throw DomainError.invalidField('profile.email', 'must equal email when both are given');
    }
    if (!admin && (dto.profile?.emailVerified || dto.profile?.phoneNumberVerified)) {
      throw DomainError.permissionDenied('Only admins may mark an email or phone number verified.', Reason.FIELD_NOT_WRITABLE);
    }
    if (dto.password !== undefined) {
      const violation = passwordViolation('password', dto.password, email);
      if (violation) throw DomainError.invalidArgument(`Invalid request: password: ${violation.description}`, [violation]);
    }
    const settings = await scope.settings();
    const user = newUser({
      sectorId: scope.route.sectorId,
      email,
      username: dto.username,
      passwordHash: dto.password !== undefined ? await this.hasher.hash(dto.password) : null,
      isAdmin: dto.isAdmin ?? false,
      emailAdminSet: admin,
    });
    Object.assign(user, profilePatch({ ...dto.profile, email }));
    const invitation = dto.password === undefined ? this.newInvitation(scope, settings) : undefined;
    if (invitation) {
      user.inviteTokenHash = invitation.tokenHash;
      user.inviteExpiresAt = invitation.expiresAt;
    }
    await this.messages.inTransaction(scope, async (tx) => {
      // A username that defaulted to the email is checked as the email (EMAIL_TAKEN, not USERNAME_TAKEN).
      await this.assertLoginsFree(tx, scope.route.sectorId, dto.username !== undefined ? user.username : undefined, user.email);
      await this.users.insert(tx, user);
      const target = { kind: 'user', id: user.id };
      await this.audit.record(tx, { type: 'user.created', sectorId: scope.route.sectorId, target, details: { isAdmin: user.isAdmin, invited: invitation !== undefined } });
      if (invitation) {
        await this.enqueueInvite(tx, scope, settings, user, invitation);
        await this.audit.record(tx, { type: 'user.invited', sectorId: scope.route.sectorId, target });
      }
    });
    return this.requireUser(scope.db, user.id);
  }

  async list(scope: SectorScope, query: ListUsersQuery): Promise<ListUsersResponse> {
    const p = paging(query.pageSize, query.page);
    const filterVerified = query.filterVerified === undefined ? undefined : query.filterVerified === 'true';
    const filterDisabled = query.filterDisabled === undefined ? undefined : query.filterDisabled === 'true';
    const { items, total } = await this.users.list(
      scope.db,
      scope.route.sectorId,
      { searchTerm: query.searchTerm, filterEmail: query.filterEmail, filterVerified, filterDisabled, filterRole: query.filterRole || undefined },
      query.sortBy ?? 'created_at',
      query.sortDesc ?? false,
      p,
      query.skipTotalCount ?? false,
    );
    return { users: items.map((u) => toUserListItem(u)), ...pageInfo(total, p) };
  }

  /** The user's profile, with the new email waiting for confirmation (if any). */
  async get(target: TargetUserRef): Promise<UserProfileResponse> {
    const [user, pendingEmail] = await Promise.all([this.requireUser(target.scope.db, target.id), this.users.pendingEmail(target.scope.db, target.id)]);
    return toUserProfile(user, pendingEmail);
  }

  /**
   * Operation 8. `isAdmin` applies only with `setAdminExplicitly`; only admins grant
   * or revoke admin; the verified flags are the admins' to set; the last admin of
   * the default sector stays. Email and phone (docs/security.md, Step-up and
   * Account recovery):
   * - users changing their own need a recent authentication (never a transaction
   *   proof); their new email waits, pending, until the link mailed to it is
   *   followed (`confirmEmailChange`), their new phone applies unverified, and
   *   their current address is told;
   * - a signed-in admin over the sector changes another user's directly, and an
   *   email an admin sets may receive recovery links unverified;
   * - an API token changes them only for a user with no way to sign in yet (a
   *   pending invitation), checked with the user's row locked;
   * - any other email change clears its verified flag (a phone change too).
   */
  async update(caller: Principal, target: TargetUserRef, dto: UpdateUserDto, clientIp: string): Promise<UpdateUserResponse> {
    const { scope } = target;
    const user = await this.requireUser(scope.db, target.id);
    if (dto.sectorID !== undefined && dto.sectorID !== user.sectorId) {
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, Reason.SECTOR_MISMATCH, 'sectorID: users cannot be moved between sectors', {
        fieldViolations: [{ field: 'sectorID', description: "must be the user's own sector" }],
      });
    }
    const admin = isUserAdminOver(caller, scope.route);
    const self = StepUpService.isSelf(caller, user.id);
    const patch = profilePatch(dto.profile, user.address);
    for (const flag of ['emailVerified', 'phoneNumberVerified'] as const) {
      if (patch[flag] !== undefined && !admin && patch[flag] !== user[flag]) {
        throw DomainError.permissionDenied(`Only admins may change ${flag}.`, Reason.FIELD_NOT_WRITABLE);
      }
    }
    const emailChanges = patch.email !== undefined && patch.email.toLowerCase() !== user.email.toLowerCase();
    const phoneChanges = patch.phoneNumber !== undefined && patch.phoneNumber !== user.phoneNumber;
    if (emailChanges || phoneChanges) {
      await this.stepUp.require(caller, target, { currentPassword: dto.currentPassword }, clientIp, 'change the email address or phone number');
    }
    // The user's own new address waits for its link; anyone else's change applies now.
    const pendingEmail = self && emailChanges ? patch.email : undefined;
    if (pendingEmail !== undefined) delete patch.email;
    if (emailChanges && pendingEmail === undefined) {
      if (!(admin && dto.profile?.emailVerified !== undefined)) patch.emailVerified = false;
      patch.emailAdminSet = admin;
    }
    if (phoneChanges && !(admin && dto.profile?.phoneNumberVerified !== undefined)) patch.phoneNumberVerified = false;
    const adminChange = dto.setAdminExplicitly === true && dto.isAdmin !== undefined && dto.isAdmin !== user.isAdmin;
    if (adminChange && !admin) {
      throw DomainError.permissionDenied('Only admins may grant or revoke admin rights.', Reason.ADMIN_REQUIRED_TO_GRANT_ADMIN);
    }
    // Disabling or enabling: admins over the sector, or an API token (which reaches non-admin users only); never oneself.
    const stateChange = dto.disabled !== undefined && dto.disabled !== (user.disabledAt !== null);
    if (stateChange && (self || !(admin || caller.kind === 'apiToken'))) {
      throw DomainError.permissionDenied('Only admins, or an API token for a user who is not an admin, may disable or enable a user, and never their own account.', Reason.FIELD_NOT_WRITABLE);
    }
    let afterSignOut: AfterSignOut | undefined;
    await this.messages.inTransaction(scope, async (tx) => {
      if (caller.kind === 'apiToken' && (emailChanges || phoneChanges) && (await this.users.lockAndHasSignInMethod(tx, user.id))) {
        throw DomainError.permissionDenied(
          'An API token cannot change the email address or phone number of a user who can sign in (a password, a factor, a passkey or a linked identity); only of a pending invitation.',
          Reason.FIELD_NOT_WRITABLE,
        );
      }
      if (emailChanges) await this.assertLoginsFree(tx, user.sectorId, undefined, pendingEmail ?? patch.email, user.id);
      if (adminChange) {
        if (!dto.isAdmin) await this.assertNotLastAdmin(tx, user);
        patch.isAdmin = dto.isAdmin;
      }
      if (Object.keys(patch).length > 0) await this.users.update(tx, user.id, patch);
      if (stateChange) afterSignOut = await this.setDisabled(tx, user, dto.disabled === true);
      if (pendingEmail !== undefined) await this.mailEmailChange(tx, scope, user, pendingEmail);
      if (self && (emailChanges || phoneChanges) && user.email !== '') {
        const change = [emailChanges && 'email address', phoneChanges && 'phone number'].filter(Boolean).join(' and ');
        await this.messages.enqueue(tx, scope, 'emailChangeNotice', { email: user.email, locale: user.locale }, { username: user.username, change });
      }
      // The names of the stored fields the update sets, never their values (the internal email trust flag aside).
      const fields = Object.keys(patch).filter((f) => f !== 'emailAdminSet').sort();
      const details = pendingEmail !== undefined ? { fields, emailChangePending: true } : { fields };
      if (fields.length > 0 || pendingEmail !== undefined || !stateChange) {
        await this.audit.record(tx, { type: 'user.updated', sectorId: user.sectorId, target: { kind: 'user', id: user.id }, details });
      }
    });
    this.cache.forget(scope.route.tenant, `u:${user.id}`);
    await afterSignOut?.();
    const response: UpdateUserResponse = { sub: user.id, username: user.username, sectorID: user.sectorId };
    if (pendingEmail !== undefined) response.pendingEmail = pendingEmail;
    return response;
  }

  /**
   * Disables (every session and token of the user ends, with the OpenID Provider
   * sessions they started; never the last enabled admin of the default sector) or
   * enables the user, in the caller's transaction; `user.disabled` or
   * `user.enabled`. Answers what to do after the commit.
   */
  async setDisabled(tx: TenantDb, user: UserEntity, disabled: boolean): Promise<AfterSignOut | undefined> {
    if (disabled && user.isAdmin) await this.assertNotLastAdmin(tx, user);
    if (!(await this.users.setDisabled(tx, user.id, disabled))) return undefined;
    await this.audit.record(tx, { type: disabled ? 'user.disabled' : 'user.enabled', sectorId: user.sectorId, target: { kind: 'user', id: user.id } });
    return disabled ? this.signOut.signedOut(tx, { kind: 'user', userId: user.id, exceptSessionId: null, userDeleted: false }) : undefined;
  }

  /** Stores the user's email-change link (replacing an earlier one) and mails it to the new address, in the caller's transaction. */
  private async mailEmailChange(tx: TenantDb, scope: SectorScope, user: UserEntity, email: string): Promise<void> {
    const token = newRoutedId(scope.route.tenant.id);
    const expiresAt = new Date(Date.now() + EMAIL_LINK_HOURS * 3_600_000);
    await this.links.replace(tx, 'email-change', user.id, email, hashSecretToken(token), expiresAt);
    await this.messages.enqueue(tx, scope, 'emailChange', { email, locale: user.locale }, {
      link: await this.messages.linkUrl(tx, scope, ACCOUNT_LINKS['email-change'].path, { token, type: 'email-change' }),
      email,
      username: user.username,
      expiresInHours: EMAIL_LINK_HOURS,
    });
  }

  /**
   * Sets a new password under the password policy. Users changing their own
   * password prove the current one (a wrong one is INVALID_CREDENTIALS), admins
   * too; signed-in admins over another user's sector may set theirs without. An invitation still pending
   * is settled by it, and every other token and recent sign-in of the user stops
   * working.
   */
  async changePassword(caller: Principal, target: TargetUserRef, dto: ChangePasswordDto, clientIp: string): Promise<UserRefResponse> {
    const { db, route } = target.scope;
    const user = await this.requireUser(db, target.id);
    // Users changing their own password prove the current one, admins included (a stolen token alone must not take the account).
    const self = caller.kind === 'user' && caller.userId === user.id;
    if (self || !isUserAdminOver(caller, route) || dto.currentPassword !== undefined) {
      const attempt = { tenantId: route.tenant.id, sectorId: user.sectorId, account: accountRef(user.id, user.username), clientIp };
      const reservation = await this.throttle.reserve(attempt, 'password');
      const ok = dto.currentPassword !== undefined && (await this.hasher.verifyOrWaste(dto.currentPassword, user.passwordHash));
      if (!ok) throw DomainError.unauthenticated(Reason.INVALID_CREDENTIALS, 'The current password is incorrect.');
      await reservation.succeeded();
    }
    const violation = passwordViolation('newPassword', dto.newPassword, user.email);
    if (violation) throw DomainError.invalidArgument(`Invalid request: newPassword: ${violation.description}`, [violation]);
    // A self-service change keeps the caller's own session (every other one is revoked); an admin's change keeps none.
    // A caller whose token predates sessions (no sid) keeps that token by its jti instead.
    const keepSessionId = self && caller.kind === 'user' ? (caller.sessionId ?? null) : null;
    const keepJti = self && caller.kind === 'user' && !caller.sessionId ? caller.tokenId : null;
    const passwordHash = await this.hasher.hash(dto.newPassword);
    const after = await db.transaction(async (tx) => {
      await this.users.setPassword(tx, user.id, passwordHash, keepJti, keepSessionId);
      await this.audit.record(tx, { type: 'password.changed', sectorId: user.sectorId, target: { kind: 'user', id: user.id }, details: { self } });
      return this.signOut.signedOut(tx, { kind: 'user', userId: user.id, exceptSessionId: keepSessionId, userDeleted: false });
    });
    this.cache.forget(route.tenant, `u:${user.id}`);
    await after();
    return { sub: user.id };
  }

  /** Deletes a user; their tokens stop working at once (every request reads the user), and so do the OpenID Provider sessions and tokens they had. */
  async delete(target: TargetUserRef): Promise<UserRefResponse> {
    const after = await target.scope.db.transaction(async (tx) => {
      const user = await this.requireUser(tx, target.id);
      if (user.isAdmin) await this.assertNotLastAdmin(tx, user);
      await this.users.delete(tx, user.id);
      await this.audit.record(tx, { type: 'user.deleted', sectorId: user.sectorId, target: { kind: 'user', id: user.id } });
      return this.signOut.signedOut(tx, { kind: 'user', userId: user.id, exceptSessionId: null, userDeleted: true });
    });
    this.cache.forget(target.scope.route.tenant, `u:${target.id}`);
    await after();
    return { sub: target.id };
  }

  /** A new invitation link for a user who has not set a password yet; the old link stops working. */
  async resendInvite(target: TargetUserRef): Promise<ResendInviteResponse> {
    const { scope } = target;
    const expiresAt = await this.messages.inTransaction(scope, async (tx) => {
      const user = await this.requireUser(tx, target.id);
      if (user.passwordHash !== null || user.inviteAcceptedAt !== null) {
        throw DomainError.failedPrecondition(Reason.INVITE_NOT_PENDING, 'The user has already set a password; there is nothing to invite to.');
      }
      return this.inviteInTransaction(tx, scope, user, { resent: true });
    });
    return { sub: target.id, inviteStatus: 'pending', inviteExpiresAt: unixSeconds(expiresAt) };
  }

  /**
   * Invites a user who has no password, in the caller's transaction (run it through
   * SectorMessages.inTransaction: the mail leaves once it commits): a new link
   * replaces an earlier one, `user.invited`. Answers when the link expires.
   */
  async inviteInTransaction(tx: TenantDb, scope: SectorScope, user: UserEntity, details: Record<string, unknown> = {}): Promise<Date> {
    const settings = await scope.settings();
    const invitation = this.newInvitation(scope, settings);
    await this.users.update(tx, user.id, { inviteTokenHash: invitation.tokenHash, inviteExpiresAt: invitation.expiresAt });
    await this.enqueueInvite(tx, scope, settings, user, invitation);
    await this.audit.record(tx, { type: 'user.invited', sectorId: user.sectorId, target: { kind: 'user', id: user.id }, details });
    return invitation.expiresAt;
  }

  private newInvitation(scope: SectorScope, settings: SectorSettingsEntity): Invitation {
    const token = newRoutedId(scope.route.tenant.id);
    const hours = Number(settings.inviteExpirationHours);
    return { token, tokenHash: hashSecretToken(token), expiresAt: new Date(Date.now() + hours * 3_600_000) };
  }

  /** Queues the invitation mail: its link is the sector's MagicLinkURL (where allowed), else PUBLIC_URL/invite, with the token. */
  private async enqueueInvite(tx: TenantDb, scope: SectorScope, settings: SectorSettingsEntity, user: UserEntity, invitation: Invitation): Promise<void> {
    return this.messages.enqueue(tx, scope, 'invite', { email: user.email, locale: user.locale }, {
      link: await this.messages.linkUrl(tx, scope, '/invite', { token: invitation.token }),
      email: user.email,
      username: user.username,
      expiresInHours: Number(settings.inviteExpirationHours),
    });
  }

  /** Usernames and emails are unique per sector, and never equal to another user's other login. */
  private async assertLoginsFree(tx: TenantDb, sectorId: string, username: string | undefined, email: string | undefined, exceptUserId?: string) {
    await this.users.lockSectorLogins(tx, sectorId);
    if (username !== undefined && (await this.users.loginTaken(tx, sectorId, [username], exceptUserId))) {
      throw DomainError.alreadyExists(Reason.USERNAME_TAKEN, 'That username is already used in this sector.');
    }
    if (email !== undefined && email !== '' && (await this.users.loginTaken(tx, sectorId, [email], exceptUserId))) {
      throw DomainError.alreadyExists(Reason.EMAIL_TAKEN, 'That email is already used in this sector.');
    }
  }

  /** The last admin of a tenant's default sector can be neither demoted nor deleted. */
  private async assertNotLastAdmin(tx: TenantDb, user: UserEntity): Promise<void> {
    if (user.sectorId !== tx.tenant.rootSectorId) return;
    const admins = await this.users.lockAdmins(tx, user.sectorId);
    if (!admins.some((id) => id !== user.id)) {
      throw DomainError.failedPrecondition(Reason.LAST_ADMIN, "This is the last admin of the tenant's default sector; make another admin first.");
    }
  }

  private async requireUser(db: TenantDb, id: string): Promise<UserEntity> {
    const user = await this.users.findById(db, id);
    if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
    return user;
  }
}
