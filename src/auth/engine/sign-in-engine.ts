import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainError } from '../../common/errors/domain-error';
import { Reason } from '../../common/errors/error-codes';
import { SectorScope, SectorScopes } from '../../settings/sector-scope';
import { IssueKnown, SessionService } from '../../session/session.service';
import { currentUserAgent } from '../../session/request-context';
import { newRoutedId } from '../../tenancy/routed-id';
import { TenantDb } from '../../tenancy/tenant-db';
import { accountRef } from '../../throttle/throttle-policy';
import { ThrottleService, ThrottleSubject } from '../../throttle/throttle.service';
import { UserEntity } from '../../user/user.entity';
import { UserRepository } from '../../user/user.repository';
import type { AuthResultResponse } from './auth.dto';
import { Assurance, authenticationMethods, Factor, NextStep, nextStep, PolicyInput } from './auth-policy';
import { AuthTransactionEntity } from './auth-transaction.entity';
import { AuthTransactionRepository } from './auth-transaction.repository';
import { FactorRegistry } from './factor-registry';
import { SignInPolicies } from './sign-in-policies';
import { ConsumePending, FactorStrategy, SharedReads, StepState } from './factor-strategy';
import { TransactionJanitor } from './transaction-janitor';
import { Metrics } from '../../metrics/metrics.service';
import { AuditService } from '../../audit/audit.service';
import { EventsService } from '../../events/events.service';

/** The kind of the transactions sign-in steps continue (other flows, such as factor registration, keep their own kinds). */
export const SIGN_IN = 'login';

/** What a step request names: its sector, the transaction it continues, the login it starts with. */
export interface StepRequest {
  sectorID?: string;
  transactionID?: string;
  username?: string;
}

/**
 * The sign-in engine: one skeleton for every factor. A step loads (or starts) the
 * authentication transaction and the user, checks they belong together, reserves
 * a guess with the throttle, lets the factor's strategy check the proof, spends
 * an attempt (or fails the transaction) on a wrong proof, asks the policy what
 * comes next, and records the outcome with one conditional UPDATE; the step that
 * completes the transaction issues the token. Flows are records: the transaction
 * is the only state between steps.
 */
@Injectable()
export class SignInEngine {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registry: FactorRegistry,
    private readonly scopes: SectorScopes,
    private readonly users: UserRepository,
    private readonly transactions: AuthTransactionRepository,
    private readonly throttle: ThrottleService,
    private readonly janitor: TransactionJanitor,
    private readonly sessions: SessionService,
    private readonly metrics: Metrics,
    private readonly audit: AuditService,
    private readonly events: EventsService,
    private readonly policies: SignInPolicies,
  ) {}

  /** The sector of a sign-in request (omitted: the platform tenant's default sector). */
  scopeForSignIn(sectorId: string | undefined): Promise<SectorScope> {
    return this.scopes.forSignIn(sectorId);
  }

  /**
   * Loads what a step works on: the sector, the pending transaction it continues
   * (if any), and the user — the transaction's, or the one `username` names
   * (username or email, case-insensitive; null when nobody). A username that names
   * another user than the transaction's is TRANSACTION_MISMATCH. `checkRequest`
   * validates the rest of the request before any user is looked up.
   */
  async load(request: StepRequest, clientIp: string, checkRequest?: () => void): Promise<StepState> {
    const scope = await this.scopes.forSignIn(request.sectorID);
    const tx = request.transactionID ? await this.pendingTransaction(scope, request.transactionID) : undefined;
    if (!tx && !request.username) throw DomainError.invalidField('username', 'is required when starting a new flow');
    checkRequest?.();
    const user = tx
      ? tx.userId
        ? await this.users.findById(scope.db, tx.userId)
        : null
      : await this.users.findByLogin(scope.db, scope.route.sectorId, request.username ?? '');
    if (tx && user && request.username && !matchesLogin(user, request.username)) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_MISMATCH, 'The transaction belongs to another user.');
    }
    return { scope, tx, user, login: request.username ?? tx?.id ?? '', clientIp };
  }

  /** A transaction that later steps may continue: of this sector, pending and unexpired. */
  async pendingTransaction(scope: SectorScope, id: string): Promise<AuthTransactionEntity> {
    const tx = await this.transactions.find(scope.db, id);
    if (!tx || tx.kind !== SIGN_IN || tx.sectorId !== scope.route.sectorId) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_NOT_FOUND, 'No such authentication transaction in this sector.');
    }
    if (tx.status === 'FAILED') throw transactionFailed();
    if (tx.status !== 'PENDING') throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction is already completed.');
    if (tx.expiresAt.getTime() <= Date.now()) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_EXPIRED, 'The authentication transaction has expired; start again.');
    }
    return tx;
  }

  /**
   * Starts a pending transaction for a flow that has no factor yet (a code sent,
   * a code as the first step, a passkey challenge), waiting for `challenge`: such
   * flows can be started by anyone who knows a username, so they are counted per
   * client address first.
   */
  async startAnonymousFlow(state: StepState, challenge: string, data: Record<string, unknown> = {}): Promise<AuthTransactionEntity> {
    await this.throttle.count({ clientIp: state.clientIp }, 'flow');
    const tx = await this.startTransaction(state.scope, state.user, [], challenge, state.clientIp, data);
    state.tx = tx;
    return tx;
  }

  /**
   * Starts a pending transaction for a user (null: an unknown one) who has already
   * satisfied `factors`; `id`, when given, is a routed id the caller made (a social
   * flow names its OAuth state before the row exists).
   */
  async startTransaction(
    scope: SectorScope,
    user: UserEntity | null,
    factors: Factor[],
    challenge: string,
    clientIp: string,
    data: Record<string, unknown> = {},
    id?: string,
  ): Promise<AuthTransactionEntity> {
    const tx = this.newTransaction(scope, user, factors, 'PENDING', challenge, clientIp);
    if (id !== undefined) tx.id = id;
    tx.data = data;
    await this.transactions.insert(scope.db, tx);
    this.janitor.noteActivity(scope.route.tenant);
    return tx;
  }

  /**
   * Begins a factor (sends a code, issues a challenge) through its strategy. The
   * pending state the strategy answers is kept under its slot: on the step's
   * transaction, or on a new anonymous flow (counted per client address) when the
   * step has none. Answers what the strategy answers for the endpoint.
   */
  async begin<I, R>(strategy: FactorStrategy<unknown, I, R>, state: StepState, input: I): Promise<R> {
    if (!strategy.begin) throw new Error(`The factor strategy '${strategy.id}' has no begin.`);
    const { answer, pending } = await strategy.begin(state, input);
    if (pending !== undefined) {
      if (!strategy.pending) throw new Error(`The factor strategy '${strategy.id}' answered a pending state but has no slot for it.`);
      if (!state.tx) {
        await this.startAnonymousFlow(state, strategy.assurance.challengeType ?? '', { [strategy.pending.key]: pending });
      } else if (!(await this.transactions.setPending(state.scope.db, state.tx.id, strategy.pending.key, pending))) {
        throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction was completed or expired meanwhile.');
      }
    }
    return answer;
  }

  /**
   * Runs one verification step of any factor: the proof goes to the strategy
   * only after a guess was reserved with the throttle (per account and address),
   * so a burst of parallel guesses reaches it at most the allowance's number of
   * times. A wrong proof answers the strategy's refusal (after spending one of the
   * transaction's attempts where the factor does; the last one fails the
   * transaction); a right one is recorded by `recordFactor`.
   */
  async verify<P>(strategy: FactorStrategy<P, unknown, unknown>, state: StepState, proof: P): Promise<AuthResultResponse> {
    let result: AuthResultResponse;
    try {
      result = await this.verifyStep(strategy, state, proof);
    } catch (err) {
      const reason = err instanceof DomainError ? err.reason : 'INTERNAL';
      this.metrics.signIns.inc({ factor: strategy.assurance.factor, outcome: 'failure', reason });
      // A refused step changes nothing to join: its event is appended on its own (docs/adr/0025-audit-trail.md).
      await this.audit.recordAlone(state.scope.db, {
        type: 'sign_in',
        sectorId: state.scope.route.sectorId,
        outcome: 'failure',
        reason,
        actor: { kind: 'anonymous', id: '' },
        target: state.user ? { kind: 'user', id: state.user.id } : undefined,
        details: { factor: strategy.assurance.factor },
      });
      throw err;
    }
    this.metrics.signIns.inc({ factor: strategy.assurance.factor, outcome: 'success', reason: '' });
    return result;
  }

  private async verifyStep<P>(strategy: FactorStrategy<P, unknown, unknown>, state: StepState, proof: P): Promise<AuthResultResponse> {
    await strategy.precheck?.(state, proof);
    const subject: ThrottleSubject = {
      tenantId: state.scope.route.tenant.id,
      sectorId: state.scope.route.sectorId,
      account: accountRef(state.user?.id, state.login),
      clientIp: state.clientIp,
    };
    const reservation = await this.throttle.reserve(subject, strategy.guess);
    let verdict;
    try {
      verdict = await strategy.verify(state, proof);
    } catch (err) {
      // Not an answer to the guess (a refusal of another kind): the reservation goes back.
      await reservation.cancel();
      throw err;
    }
    if (!verdict.ok || !state.user) {
      const refusal = verdict.ok ? undefined : verdict.refusal;
      if (strategy.spendsAttempt && state.tx) {
        const left = await this.transactions.spendAttempt(state.scope.db, state.tx.id);
        if (left < 0) throw transactionFailed();
        throw strategy.wrongProof(left, refusal);
      }
      throw strategy.wrongProof(undefined, refusal);
    }
    await reservation.succeeded();
    const consume = verdict.consume && strategy.pending ? { key: strategy.pending.key, ...verdict.consume } : undefined;
    const result = await this.record(state.scope, state.user, state.tx, strategy.assurance.factor, state.clientIp, consume);
    await verdict.afterRecorded?.();
    return result;
  }

  /**
   * Records the factor of the strategy registered as `strategyId` as satisfied
   * without a proof step (an accepted invitation, a reset password, a signup set
   * the password): see `record`.
   */
  recordFactor(scope: SectorScope, user: UserEntity, existing: AuthTransactionEntity | undefined, strategyId: string, clientIp: string): Promise<AuthResultResponse> {
    return this.record(scope, user, existing, this.registry.get(strategyId).assurance.factor, clientIp);
  }

  /**
   * Records a satisfied factor and moves the transaction on: a new transaction is
   * inserted in its resulting state; an existing one changes with one conditional
   * UPDATE (also consuming the pending state the proof answered, when given), so
   * of racing steps only one completes it and gets a token. Every satisfied factor
   * is a successful sign-in step — a verified proof, an accepted invitation, a reset
   * password, a signup — and leaves its audit event: a step that completes the
   * transaction writes the transaction's new state, the session, its
   * `user.signed_in` event and the audit event in one database transaction; a step
   * that leaves it pending writes the transaction, then its audit event on its own.
   */
  private async record(
    scope: SectorScope,
    user: UserEntity,
    existing: AuthTransactionEntity | undefined,
    factor: Factor,
    clientIp: string,
    consume?: ConsumePending & { key: string },
  ): Promise<AuthResultResponse> {
    // Refused only once a factor was proven, so a stranger learns nothing of the account's state.
    if (user.disabledAt) throw DomainError.permissionDenied('This account is disabled; ask an admin.', Reason.USER_DISABLED);
    const factors = [...new Set([...((existing?.factors ?? []) as Factor[]), factor])];
    const settings = await scope.settings();
    const input: PolicyInput = {
      factors: factors.map((f) => this.registry.assuranceOf(f)),
      mfaRequired: settings.mfaRequired,
      enrolledSecondFactors: await this.enrolledSecondFactors(scope, user),
    };
    let next = nextStep(input);
    // Extension modules' sign-in policies and token claims are asked before anything is recorded, so that a refusal or
    // a failure leaves the transaction as it was (docs/adr/0047-extension-modules.md). Without any, two checks.
    let known: IssueKnown | undefined;
    if (next.status === 'SUCCESS' && (this.policies.size > 0 || this.sessions.addsExtensionClaims)) {
      ({ next, known } = await this.askExtensions(scope, user, factors, clientIp, input, next));
    }
    const audit = { type: 'sign_in', sectorId: scope.route.sectorId, outcome: 'success', actor: { kind: 'user', id: user.id }, target: { kind: 'user', id: user.id } } as const;
    if (next.status !== 'SUCCESS') {
      const transactionId = await this.advance(scope.db, scope, user, existing, factors, next, clientIp, consume);
      await this.audit.recordAlone(scope.db, { ...audit, details: { factor, status: next.status } });
      return { transactionID: transactionId, status: next.status, challengeType: next.challengeType };
    }
    // A completed sign-in starts a session: the token names it (`sid`) and its refresh token keeps it going.
    const amr = authenticationMethods(factors.map((f) => this.registry.assuranceOf(f)));
    const { transactionId, session } = await scope.db.transaction(async (tx) => {
      const id = await this.advance(tx, scope, user, existing, factors, next, clientIp, consume);
      const started = await this.sessions.start(scope, user, clientIp, amr, tx);
      await this.events.emit(tx, scope.route.sectorId, 'user.signed_in', {
        userID: user.id,
        sessionID: started.sessionId,
        factors,
        amr,
        clientIP: clientIp,
      });
      await this.audit.record(tx, { ...audit, details: { factor, status: 'SUCCESS' } });
      return { transactionId: id, session: started };
    });
    const { token } = await this.sessions.issueFor(scope, user, session.sessionId, undefined, known);
    return { transactionID: transactionId, status: 'SUCCESS', challengeType: '', token, refreshToken: session.refreshToken };
  }

  /**
   * Writes the transaction's new state through `db`: a new one inserted as it
   * stands after this step, an existing one moved on with one conditional UPDATE
   * (refused when a racing step moved it first). Answers the transaction's id.
   */
  private async advance(
    db: TenantDb,
    scope: SectorScope,
    user: UserEntity,
    existing: AuthTransactionEntity | undefined,
    factors: Factor[],
    next: NextStep,
    clientIp: string,
    consume?: ConsumePending & { key: string },
  ): Promise<string> {
    const status = next.status === 'SUCCESS' ? 'SUCCESS' : 'PENDING';
    if (existing) {
      const advanced = await this.transactions.advance(db, existing.id, 'PENDING', {
        factors,
        status,
        pendingChallenge: next.challengeType,
        complete: status === 'SUCCESS',
        consume,
        // A flow begun without a known user (a usernameless passkey) belongs to the user its proof named.
        ...(existing.userId === null ? { userId: user.id } : {}),
      });
      if (!advanced) throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction was completed or expired meanwhile.');
      return existing.id;
    }
    const tx = this.newTransaction(scope, user, factors, status, next.challengeType, clientIp);
    await this.transactions.insert(db, tx);
    db.afterCommit(() => this.janitor.noteActivity(scope.route.tenant));
    return tx.id;
  }

  /**
   * What extension modules make of a transaction about to succeed: the sign-in
   * policies answer `next` as it was, or the second factor one of them asks for (as
   * if the sector required MFA); a refusal, or a policy that failed, throws. When it
   * still succeeds, the claims the token will carry. The user's grants are read once,
   * for them and for the token.
   */
  private async askExtensions(
    scope: SectorScope,
    user: UserEntity,
    factors: Factor[],
    clientIp: string,
    input: PolicyInput,
    next: NextStep,
  ): Promise<{ next: NextStep; known: IssueKnown }> {
    const grants = await this.users.grantsOf(scope.db, user.id);
    if (this.policies.size > 0) {
      const decision = await this.policies.decide({
        tenantID: scope.route.tenant.id,
        sectorID: scope.route.sectorId,
        user: { id: user.id, username: user.username, email: user.email, isAdmin: user.isAdmin, roles: grants.roles, permissions: grants.permissions },
        factors,
        amr: authenticationMethods(input.factors),
        clientIp,
        userAgent: currentUserAgent(),
      });
      if (decision === 'require_mfa') next = nextStep({ ...input, mfaRequired: true });
    }
    if (next.status !== 'SUCCESS' || !this.sessions.addsExtensionClaims) return { next, known: { grants } };
    return { next, known: { grants, extraClaims: await this.sessions.extensionClaims(scope, user, grants) } };
  }

  /**
   * What the second factors the user has enrolled are worth, as the registered
   * strategies report them (one per factor). Asked one strategy after another: a
   * sign-in usually reaches a tenant whose pool has just opened one connection, and
   * asking them at once would open more (PostgreSQL's start-up of each costs more
   * than the reads).
   */
  private async enrolledSecondFactors(scope: SectorScope, user: UserEntity): Promise<Assurance[]> {
    const enrolled = new Map<Factor, Assurance>();
    const shared = new SharedReads();
    for (const s of this.registry.all()) {
      if (s.assurance.secondFactor && s.isEnrolled && (await s.isEnrolled(scope.db, user, shared))) enrolled.set(s.assurance.factor, s.assurance);
    }
    return [...enrolled.values()];
  }

  private newTransaction(
    scope: SectorScope,
    user: UserEntity | null,
    factors: Factor[],
    status: 'SUCCESS' | 'PENDING',
    challenge: string,
    clientIp: string,
  ): AuthTransactionEntity {
    const tx = new AuthTransactionEntity();
    tx.id = newRoutedId(scope.route.tenant.id);
    tx.kind = SIGN_IN;
    tx.sectorId = scope.route.sectorId;
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

/** Does `login` name this user (username or email, case-insensitive)? */
export function matchesLogin(user: UserEntity, login: string): boolean {
  const l = login.toLowerCase();
  return user.username.toLowerCase() === l || (user.email !== '' && user.email.toLowerCase() === l);
}

/** The refusal of every step of a transaction that used up its attempts. */
function transactionFailed(): DomainError {
  return DomainError.failedPrecondition(Reason.TRANSACTION_FAILED, 'The authentication transaction failed (too many wrong codes); start again.');
}
