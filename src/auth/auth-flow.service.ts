import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { newRoutedId } from '../tenancy/routed-id';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDb } from '../tenancy/tenant-db';
import { SectorRoute, TenantDirectory } from '../tenancy/tenant-directory';
import { AccessTokenService } from '../keys/access-token.service';
import { SettingsRepository } from '../settings/settings.repository';
import { SectorSettingsEntity } from '../settings/sector-settings.entity';
import { PasswordHasher } from '../user/password-hasher';
import { PASSWORD_MAX_BYTES } from '../user/password-policy';
import { UserEntity } from '../user/user.entity';
import { UserRepository } from '../user/user.repository';
import { Factor, nextStep } from './auth-policy';
import { AuthTransactionEntity } from './auth-transaction.entity';
import { AuthTransactionRepository } from './auth-transaction.repository';
import { TransactionJanitor } from './transaction-janitor';
import { AcceptInviteDto, AuthResultResponse, PasswordLoginDto } from './dto/auth.dto';
import { OtpRepository } from '../otp/otp.repository';
import { hashSecretToken } from '../common/crypto/secret-box';
import { tenantOfRoutedId } from '../tenancy/routed-id';
import { passwordViolation } from '../user/password-policy';
import { ThrottleService, ThrottleSubject } from '../throttle/throttle.service';
import { accountRef } from '../throttle/throttle-policy';

/** Everything one step of a sign-in works on. */
export interface StepContext {
  route: SectorRoute;
  db: TenantDb;
  settings: SectorSettingsEntity;
}

/**
 * The authentication transaction engine, with the password and invitation steps.
 * Each step loads or starts the transaction, verifies its factor, asks the policy
 * what comes next, and records the outcome with one conditional UPDATE; the step
 * that completes it issues the token. Further factors are further steps on the
 * same record (one-time codes: OtpLoginService; signup: SignupService).
 */
@Injectable()
export class AuthFlowService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly settingsRepo: SettingsRepository,
    private readonly users: UserRepository,
    private readonly transactions: AuthTransactionRepository,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenService,
    private readonly throttle: ThrottleService,
    private readonly otpRegistrations: OtpRepository,
    private readonly janitor: TransactionJanitor,
  ) {}

  /** Operation 11: verify a password, starting or continuing a transaction. */
  async passwordStep(dto: PasswordLoginDto, clientIp: string): Promise<AuthResultResponse> {
    const ctx = await this.context(dto.sectorID);
    const existing = dto.transactionID ? await this.pendingTransaction(ctx, dto.transactionID) : undefined;
    if (!existing && !dto.username) throw DomainError.invalidField('username', 'is required when starting a new flow');
    if (dto.password === undefined || dto.password === '') throw DomainError.invalidField('password', 'is required');

    const user = existing?.userId
      ? await this.users.findById(ctx.db, existing.userId)
      : await this.users.findByLogin(ctx.db, ctx.route.sectorId, dto.username ?? '');
    if (existing && user && dto.username && !this.matchesLogin(user, dto.username)) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_MISMATCH, 'The transaction belongs to another user.');
    }
    // Reserved against the account (its id, or the login when it names nobody) and the address before any bcrypt work.
    const reservation = await this.throttle.reserve(this.throttleSubject(ctx, user, dto.username ?? existing?.id ?? '', clientIp), 'password');
    const tooLong = Buffer.byteLength(dto.password, 'utf8') > PASSWORD_MAX_BYTES;
    const ok = await this.hasher.verifyOrWaste(dto.password, tooLong ? null : user?.passwordHash);
    if (!user || !ok) throw DomainError.unauthenticated(Reason.INVALID_CREDENTIALS, 'The username or password is incorrect.');
    await reservation.succeeded();

    return this.recordFactor(ctx, user, existing, 'PASSWORD', clientIp);
  }

  /**
   * Accepting an invitation: sets the password, marks the email verified and signs
   * the user in (the invitation link proves the email). The link works once: the
   * acceptance is one conditional UPDATE.
   */
  async acceptInvite(dto: AcceptInviteDto, clientIp: string): Promise<AuthResultResponse> {
    const notFound = () => DomainError.notFound(Reason.INVITE_NOT_FOUND, 'The invitation link is invalid or was already used.');
    const tenantId = tenantOfRoutedId(dto.token);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) throw notFound();
    const db = await this.connections.db(tenant);
    const tokenHash = hashSecretToken(dto.token);
    const invited = await this.users.findByInviteHash(db, tokenHash);
    if (!invited || invited.inviteAcceptedAt) throw notFound();
    if (!invited.inviteExpiresAt || invited.inviteExpiresAt.getTime() <= Date.now()) {
      throw DomainError.failedPrecondition(Reason.INVITE_EXPIRED, 'The invitation has expired; ask an admin to send a new one.');
    }
    const violation = passwordViolation('password', dto.password, invited.email);
    if (violation) throw DomainError.invalidArgument(`Invalid request: password: ${violation.description}`, [violation]);
    const userId = await this.users.acceptInvite(db, tokenHash, await this.hasher.hash(dto.password));
    if (!userId) throw notFound();
    const ctx = await this.context(invited.sectorId);
    const user = await this.users.findById(ctx.db, userId);
    if (!user) throw notFound();
    return this.recordFactor(ctx, user, undefined, 'PASSWORD', clientIp);
  }

  /** The sector, its tenant database and its settings, for one step. */
  async context(sectorId: string | undefined): Promise<StepContext> {
    const route = await this.directory.routeSectorOrPlatformDefault(sectorId);
    const db = await this.connections.db(route.tenant);
    const settings = await this.settingsRepo.find(db, route.sectorId);
    if (!settings) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    return { route, db, settings };
  }

  /** What the throttle counts a guess against: the user when known, else the login as typed. */
  throttleSubject(ctx: StepContext, user: { id: string } | null | undefined, login: string, clientIp: string): ThrottleSubject {
    return { tenantId: ctx.route.tenant.id, sectorId: ctx.route.sectorId, account: accountRef(user?.id, login), clientIp };
  }

  /** Does `login` name this user (username or email, case-insensitive)? */
  matchesLogin(user: UserEntity, login: string): boolean {
    const l = login.toLowerCase();
    return user.username.toLowerCase() === l || (user.email !== '' && user.email.toLowerCase() === l);
  }

  /** A transaction that later steps may continue: of this sector, pending and unexpired. */
  async pendingTransaction(ctx: StepContext, id: string): Promise<AuthTransactionEntity> {
    const tx = await this.transactions.find(ctx.db, id);
    if (!tx || tx.sectorId !== ctx.route.sectorId) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_NOT_FOUND, 'No such authentication transaction in this sector.');
    }
    if (tx.status === 'FAILED') {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_FAILED, 'The authentication transaction failed (too many wrong codes); start again.');
    }
    if (tx.status !== 'PENDING') throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction is already completed.');
    if (tx.expiresAt.getTime() <= Date.now()) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_EXPIRED, 'The authentication transaction has expired; start again.');
    }
    return tx;
  }

  /**
   * Records a satisfied factor and moves the transaction on: a new transaction is
   * inserted in its resulting state; an existing one changes with one conditional
   * UPDATE, so of racing steps only one completes it and gets a token.
   */
  async recordFactor(
    ctx: StepContext,
    user: UserEntity,
    existing: AuthTransactionEntity | undefined,
    factor: Factor,
    clientIp: string,
    consumeCodeMac?: string,
  ): Promise<AuthResultResponse> {
    const factors = [...new Set([...((existing?.factors ?? []) as Factor[]), factor])];
    const enrolled = (await this.otpRegistrations.hasVerified(ctx.db, user.id)) ? (['OTP'] as const) : [];
    const next = nextStep({ factors, mfaRequired: ctx.settings.mfaRequired, enrolledSecondFactors: enrolled });
    const status = next.status === 'SUCCESS' ? 'SUCCESS' : 'PENDING';
    let transactionId: string;
    if (existing) {
      const advanced = await this.transactions.advance(ctx.db, existing.id, 'PENDING', {
        factors,
        status,
        pendingChallenge: next.challengeType,
        complete: status === 'SUCCESS',
        consumeCodeMac,
      });
      if (!advanced) throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction was completed or expired meanwhile.');
      transactionId = existing.id;
    } else {
      transactionId = newRoutedId(ctx.route.tenant.id);
      await this.transactions.insert(ctx.db, this.newTransaction(ctx, user, transactionId, factors, status, next.challengeType, clientIp));
      this.janitor.noteActivity(ctx.route.tenant);
    }
    if (next.status !== 'SUCCESS') return { transactionID: transactionId, status: next.status, challengeType: next.challengeType };
    const { token } = await this.tokens.issue({
      tenantId: ctx.route.tenant.id,
      kid: ctx.route.tenant.kid,
      sectorId: ctx.route.sectorId,
      userId: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      credentialVersion: user.credentialVersion,
      ttlSeconds: Number(ctx.settings.accessTokenDuration),
    });
    return { transactionID: transactionId, status: 'SUCCESS', challengeType: '', token };
  }

  /** Starts a pending transaction for a user (null: an unknown one) who has already satisfied `factors`. */
  async startTransaction(
    ctx: StepContext,
    user: UserEntity | null,
    factors: Factor[],
    challenge: string,
    clientIp: string,
    data: Record<string, unknown> = {},
  ): Promise<AuthTransactionEntity> {
    const tx = this.newTransaction(ctx, user, newRoutedId(ctx.route.tenant.id), factors, 'PENDING', challenge, clientIp);
    tx.data = data;
    await this.transactions.insert(ctx.db, tx);
    this.janitor.noteActivity(ctx.route.tenant);
    return tx;
  }

  private newTransaction(
    ctx: StepContext,
    user: UserEntity | null,
    id: string,
    factors: Factor[],
    status: 'SUCCESS' | 'PENDING',
    challenge: string,
    clientIp: string,
  ): AuthTransactionEntity {
    const tx = new AuthTransactionEntity();
    tx.id = id;
    tx.kind = 'login';
    tx.sectorId = ctx.route.sectorId;
    tx.userId = user?.id ?? null;
    tx.status = status;
    tx.factors = factors;
    tx.pendingChallenge = challenge;
    tx.attemptsLeft = this.config.otpMaxAttempts;
    tx.data = {};
    tx.clientIp = clientIp || null;
    tx.expiresAt = new Date(Date.now() + this.config.transactionTtlSeconds * 1000);
    tx.completedAt = status === 'SUCCESS' ? new Date() : null;
    return tx;
  }
}
