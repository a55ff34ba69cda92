import type { DomainError } from '../../common/errors/domain-error';
import type { SectorScope } from '../../settings/sector-scope';
import type { TenantDb } from '../../tenancy/tenant-db';
import type { GuessKind } from '../../throttle/throttle-policy';
import type { UserEntity } from '../../user/user.entity';
import type { Factor } from './auth-policy';
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

/** A strategy's answer to a proof. */
export type Verdict =
  | {
      ok: true;
      /** Consume this pending one-time code in the same conditional UPDATE that records the factor. */
      consumeCodeMac?: string;
      /** Consume this pending passkey challenge (`data.webauthn.challenge`) in the same conditional UPDATE that records the factor. */
      consumeChallenge?: string;
      /** Runs once the factor is recorded (bookkeeping that must not happen for a proof that lost a race). */
      afterRecorded?: () => Promise<void>;
    }
  | { ok: false; refusal?: Refusal };

/**
 * One sign-in factor: it knows how to check its proof (and, where it has one, how
 * to begin: send a code, issue a challenge) and nothing else. The engine
 * (SignInEngine) does the rest for every factor alike: it loads the transaction
 * and the user, checks that they belong together, reserves a guess with the
 * throttle, spends an attempt or fails the transaction on a wrong proof, asks the
 * policy what comes next, and records the outcome with one conditional UPDATE.
 *
 * To add a factor: write a class implementing this interface in
 * `src/auth/strategies/`, list it in `FACTOR_STRATEGY_CLASSES`
 * (`src/auth/strategies/index.ts`), and call `engine.verify(strategy, state, proof)`
 * from the endpoint that receives its proof.
 */
export interface FactorStrategy<Proof> {
  /** The factor a right proof records on the transaction. */
  readonly factor: Factor;
  /** How guesses at this factor are throttled (passwords and codes are counted apart). */
  readonly guess: GuessKind;
  /** Whether a wrong proof spends one of the transaction's attempts (codes do; passwords are throttled only). */
  readonly spendsAttempt: boolean;

  /** Refusals that are not guesses (an expired code, nothing pending): checked before a guess is counted. */
  precheck?(state: StepState, proof: Proof): void | Promise<void>;

  /** Checks the proof. Called also for an unknown user, so that the answer and its cost do not reveal who exists. */
  verify(state: StepState, proof: Proof): Promise<Verdict>;

  /** The refusal of a wrong proof; `attemptsLeft` when the transaction spent one, `refusal` when the verdict said why. */
  wrongProof(attemptsLeft?: number, refusal?: Refusal): DomainError;

  /** Has the user enrolled this factor as a second factor? (Makes a second factor mandatory at sign-in.) */
  isEnrolled?(db: TenantDb, user: UserEntity): Promise<boolean>;
}

/** Injection token of the registered strategies (see `src/auth/strategies/index.ts`). */
export const FACTOR_STRATEGIES = Symbol('FACTOR_STRATEGIES');
