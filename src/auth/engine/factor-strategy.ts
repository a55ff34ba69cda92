import type { DomainError } from '../../common/errors/domain-error';
import type { SectorScope } from '../../settings/sector-scope';
import type { TenantDb } from '../../tenancy/tenant-db';
import type { GuessKind } from '../../throttle/throttle-policy';
import type { UserEntity } from '../../user/user.entity';
import type { Assurance } from './auth-policy';
import type { AuthTransactionEntity } from './auth-transaction.entity';

/** What one step of a sign-in works on, loaded by the engine before a strategy sees it. */
export interface StepState {
  /** The sector of the sign-in: tenant database and settings. */
  scope: SectorScope;
  /** The transaction being continued; undefined when the step starts a new flow. */
  tx: AuthTransactionEntity | undefined;
  /** The account the step is about; null when the login names nobody (answered like a wrong proof). */
  user: UserEntity | null;
  /** What the throttle counts a guess against when no user is known: the login as typed (or the transaction). */
  login: string;
  clientIp: string;
}

/** Why a proof was refused, for factors whose refusals differ (a passkey's wrong origin, RP ID, counter…); handed to `wrongProof`. */
export interface Refusal {
  reason: string;
  message: string;
  /** Extra ErrorInfo metadata (diagnostics; never secrets). */
  metadata?: Record<string, string>;
}

/**
 * A strategy's pending state between its begin and its proof (a code's MAC, a
 * passkey challenge), kept in the transaction's internal data under `key`.
 */
export class PendingSlot<T extends object> {
  constructor(readonly key: string) {}

  /** The pending state of the transaction (undefined when none). */
  of(tx: AuthTransactionEntity | undefined): T | undefined {
    return tx?.data?.[this.key] as T | undefined;
  }
}

/** Consume the strategy's pending state in the same conditional UPDATE that records the factor, only while its value at `path` is `equals`. */
export interface ConsumePending {
  path: string;
  equals: string;
}

/** A strategy's answer to a proof. */
export type Verdict =
  | {
      ok: true;
      /** Consume the strategy's pending state (`FactorStrategy.pending`) with the UPDATE that records the factor: the proof works once. */
      consume?: ConsumePending;
      /** Runs once the factor is recorded (bookkeeping that must not happen for a proof that lost a race). */
      afterRecorded?: () => Promise<void>;
    }
  | { ok: false; refusal?: Refusal };

/** What a strategy's begin answers: what the endpoint returns, and the pending state the engine keeps for the proof (if the strategy did not store it itself). */
export interface BeginOutcome<R, T extends object = object> {
  answer: R;
  pending?: T;
}

/**
 * One sign-in factor: it knows how to check its proof (and, where it has one, how
 * to begin: send a code, issue a challenge) and nothing else. The engine
 * (SignInEngine) does the rest for every factor alike: it loads the transaction
 * and the user, checks that they belong together, reserves a guess with the
 * throttle, spends an attempt or fails the transaction on a wrong proof, asks the
 * policy what comes next (from the strategies' `assurance`), and records the
 * outcome with one conditional UPDATE.
 *
 * To add a factor: write a class implementing this interface in the feature's
 * folder, provide it in the feature's module and register it with the
 * `FactorRegistry` in `onModuleInit`, and call `engine.begin(strategy, state, input)`
 * and `engine.verify(strategy, state, proof)` from the endpoints that begin it and
 * receive its proof.
 */
export interface FactorStrategy<Proof, BeginInput = never, BeginAnswer = void> {
  /** The strategy's registered id ('password', 'otp-sent', 'webauthn', …): one strategy per id. */
  readonly id: string;
  /** What a right proof records and is worth to the policy. */
  readonly assurance: Assurance;
  /** How guesses at this factor are throttled (passwords and codes are counted apart). */
  readonly guess: GuessKind;
  /** Whether a wrong proof spends one of the transaction's attempts (codes do; passwords are throttled only). */
  readonly spendsAttempt: boolean;
  /** Where the strategy keeps its pending state on the transaction, if it has one. */
  readonly pending?: PendingSlot<object>;

  /** Begins the factor (sends a code, issues a challenge); called through `engine.begin`. */
  begin?(state: StepState, input: BeginInput): Promise<BeginOutcome<BeginAnswer>>;

  /** Refusals that are not guesses (an expired code, nothing pending): checked before a guess is counted. */
  precheck?(state: StepState, proof: Proof): void | Promise<void>;

  /** Checks the proof. Called also for an unknown user, so that the answer and its cost do not reveal who exists. */
  verify(state: StepState, proof: Proof): Promise<Verdict>;

  /** The refusal of a wrong proof; `attemptsLeft` when the transaction spent one, `refusal` when the verdict said why. */
  wrongProof(attemptsLeft?: number, refusal?: Refusal): DomainError;

  /**
   * Has the user enrolled this factor as a second factor? (Makes a second factor
   * mandatory at sign-in.) `shared` carries the reads of the other strategies asked in
   * the same check, so that strategies whose factors live in one table read it once.
   */
  isEnrolled?(db: TenantDb, user: UserEntity, shared: SharedReads): Promise<boolean>;

  /** Removes the factor's stale records of a tenant (registrations never verified…), answering how many; the engine's janitor calls it on its schedule. */
  sweep?(db: TenantDb): Promise<number>;
}

/**
 * The reads one check of a user's enrolled factors shares among the strategies it
 * asks: each read runs once per key (e-mail/SMS codes and authenticator apps are
 * both rows of otp_registrations, read in one statement for both strategies).
 */
export class SharedReads {
  private readonly reads = new Map<string, Promise<unknown>>();

  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let pending = this.reads.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = read();
      this.reads.set(key, pending);
    }
    return pending;
  }
}

/** Any strategy, as the registry holds it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFactorStrategy = FactorStrategy<any, any, any>;
