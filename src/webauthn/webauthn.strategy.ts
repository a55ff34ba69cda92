import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SecretBox } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { TenantDb } from '../tenancy/tenant-db';
import { UserEntity } from '../user/user.entity';
import { UserRepository } from '../user/user.repository';
import { AssertionInput, checkAssertionContext, counterRegression, Expected, newChallenge, refusalFor, toBase64Url, userHandleOf, verifyAssertion } from './ceremony';
import { RelyingParties } from './relying-parties';
import { RelyingParty } from '../settings/relying-party';
import { WebAuthnCredentialRepository } from './webauthn-credential.repository';
import type { AuthTransactionEntity } from '../auth/engine/auth-transaction.entity';
import { FactorRegistry } from '../auth/engine/factor-registry';
import { BeginOutcome, FactorStrategy, PendingSlot, Refusal, StepState, Verdict } from '../auth/engine/factor-strategy';
import { matchesLogin } from '../auth/engine/sign-in-engine';

/** MAC purpose of the stand-in credential ids answered for logins without passkeys. */
const FAKE_CREDENTIAL_MAC = 'webauthn-fake-credential';

/** The passkey challenge a transaction waits for, kept in its internal data (`data.webauthn`). */
export interface PendingPasskey {
  challenge: string;
  /** The login a username-first flow began with (its allowCredentials are derived from it again on a new begin). */
  login?: string;
}

/** Where the passkey strategy keeps its pending challenge on the transaction (`data.webauthn`). */
const PENDING_PASSKEY = new PendingSlot<PendingPasskey>('webauthn');

function pendingPasskeyOf(tx: AuthTransactionEntity | undefined): PendingPasskey | undefined {
  const pending = PENDING_PASSKEY.of(tx);
  return pending && typeof pending.challenge === 'string' ? pending : undefined;
}

/** What operation 15 proves: the browser's assertion, and the login the request names (if any). */
export type PasskeyProof = AssertionInput & { login?: string };

/** `publicKey` of credential request options, as operation 14 answers it (`timout` spelled as the interface spells it). */
export interface PasskeyRequestOptions {
  challenge: string;
  timout: number;
  timeout: number;
  rpID: string;
  allowCredentials: Array<{ type: 'public-key'; id: string; transports: string[] }>;
  userVerification: 'required' | 'preferred';
  extensions: Record<string, unknown>;
}

/**
 * A passkey (operations 14 and 15). Begin issues a challenge on the transaction
 * with the credentials the flow may use: a signed-in step's user's passkeys (a
 * second factor after the password), a named login's passkeys — or, for a login
 * without any, stable stand-ins derived from the login, so the answer never
 * tells whether the account exists or has a passkey; named logins get no
 * transports, which would tell real credentials from stand-ins — or none (a
 * discoverable, usernameless flow). A passkey flagged as possibly cloned (its
 * counter once went backwards) is refused until an admin clears the flag. Verify checks the assertion against the pending challenge, the sector's
 * relying party and the stored credential and counter, and refuses each failure
 * with its own reason. A passkey used without a password before it must verify
 * the user (biometric or PIN), which makes it a full sign-in on its own; in a
 * usernameless flow the credential names the user. The challenge is consumed by
 * the conditional UPDATE that records the factor, so it works once.
 */
@Injectable()
export class WebAuthnStrategy implements FactorStrategy<PasskeyProof, string | undefined, PasskeyRequestOptions>, OnModuleInit {
  readonly id = 'webauthn';
  /** A passkey is possession plus, as a first factor, the biometric or PIN that unlocked it: MFA on its own (user verification is required then). */
  readonly assurance = { factor: 'WEBAUTHN', kind: 'possession', secondFactor: true, satisfiesMfaAlone: true, challengeType: 'WEBAUTHN', amr: ['hwk'] } as const;
  readonly guess = 'code' as const;
  readonly spendsAttempt = true;
  readonly pending = PENDING_PASSKEY;

  constructor(
    private readonly registry: FactorRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly credentials: WebAuthnCredentialRepository,
    private readonly relyingParties: RelyingParties,
    private readonly users: UserRepository,
    private readonly box: SecretBox,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /**
   * The request options of a new challenge for the step (the answer), and what
   * the transaction must keep of it (the pending challenge, which the engine
   * stores). `username` is the login the request names. A sector without a
   * usable relying party is refused first. A transaction past its first factor
   * whose user has no passkey is FAILED_PRECONDITION / NO_WEBAUTHN_CREDENTIAL
   * (its caller proved a factor).
   */
  async begin(state: StepState, username: string | undefined): Promise<BeginOutcome<PasskeyRequestOptions, PendingPasskey>> {
    const rp = await this.relyingParties.usable(state.scope);
    return this.requestOptions(state, rp, username);
  }

  private async requestOptions(state: StepState, rp: RelyingParty, username: string | undefined): Promise<BeginOutcome<PasskeyRequestOptions, PendingPasskey>> {
    const { scope, tx, user } = state;
    const challenge = newChallenge();
    const pending: PendingPasskey = { challenge };
    let allow: PasskeyRequestOptions['allowCredentials'] = [];
    if (tx && tx.factors.length > 0 && user) {
      const own = await this.credentials.listForUser(scope.db, user.id);
      if (own.length === 0) throw DomainError.failedPrecondition(Reason.NO_WEBAUTHN_CREDENTIAL, 'The user has no passkey.');
      allow = own.map((c) => ({ type: 'public-key', id: c.credentialId, transports: c.transports }));
    } else {
      const login = username ?? pendingPasskeyOf(tx)?.login;
      if (login !== undefined) {
        // Before any factor, the answer must not tell accounts with passkeys from the others: no transports
        // (a stand-in has none to report), and stand-ins where the login has no passkey.
        pending.login = login;
        const own = user ? await this.credentials.listForUser(scope.db, user.id) : [];
        const ids = own.length > 0 ? own.map((c) => c.credentialId) : [this.standInCredentialId(scope.route.sectorId, login)];
        allow = ids.map((id) => ({ type: 'public-key', id, transports: [] }));
      }
    }
    const timeout = Math.min(this.config.transactionTtlSeconds, 300) * 1000;
    return {
      pending,
      answer: { challenge, timout: timeout, timeout, rpID: rp.id, allowCredentials: allow, userVerification: requiresUserVerification(tx) ? 'required' : 'preferred', extensions: {} },
    };
  }

  async verify(state: StepState, assertion: PasskeyProof): Promise<Verdict> {
    const { scope, tx } = state;
    const rp = await this.relyingParties.of(scope);
    const pending = pendingPasskeyOf(tx);
    const refuse = (reason: string, message: string, debug?: Record<string, string>): Verdict => ({ ok: false, refusal: refusalFor(rp, reason, message, debug) });
    if (!tx || !pending) return refuse(Reason.WEBAUTHN_CHALLENGE_MISMATCH, 'No passkey challenge is pending on this transaction; begin first.');
    const expected: Expected = { challenge: pending.challenge, rp, requireUserVerification: requiresUserVerification(tx) };
    const context = checkAssertionContext(assertion, expected);
    if (!context.ok) return { ok: false, refusal: context.refusal };

    const credential = await this.credentials.findInSector(scope.db, scope.route.sectorId, assertion.rawId);
    if (!credential) return refuse(Reason.WEBAUTHN_CREDENTIAL_NOT_REGISTERED, 'This passkey is not registered in this sector.');
    let owner = state.user;
    if (owner || pending.login !== undefined) {
      // A flow that named its user (by login, or by a factor already proven) takes that user's passkeys only.
      if (!owner || credential.userId !== owner.id) return refuse(Reason.WEBAUTHN_CREDENTIAL_MISMATCH, 'This passkey belongs to another user than the sign-in.');
    } else {
      owner = await this.users.findById(scope.db, credential.userId);
      if (!owner || owner.sectorId !== scope.route.sectorId) return refuse(Reason.WEBAUTHN_CREDENTIAL_NOT_REGISTERED, 'This passkey is not registered in this sector.');
      // A usernameless flow finished with a login: the passkey must be that login's.
      if (assertion.login !== undefined && !matchesLogin(owner, assertion.login)) {
        return refuse(Reason.WEBAUTHN_CREDENTIAL_MISMATCH, 'This passkey belongs to another user than the login named.');
      }
    }
    if (assertion.userHandle && toBase64Url(assertion.userHandle) !== userHandleOf(owner.id)) {
      return refuse(Reason.WEBAUTHN_CREDENTIAL_MISMATCH, "The passkey's user handle names another user.");
    }

    const outcome = await verifyAssertion(
      assertion,
      { credentialId: credential.credentialId, publicKey: credential.publicKey, signCount: Number(credential.signCount), transports: credential.transports },
      expected,
    );
    if (!outcome.ok) return { ok: false, refusal: outcome.refusal };
    // A passkey flagged as possibly cloned stays refused, whatever its counter now says, until an admin clears it.
    if (credential.flaggedAt) {
      return refuse(Reason.WEBAUTHN_CREDENTIAL_FLAGGED, 'This passkey was flagged as possibly cloned; an admin must clear it before it signs in again.');
    }
    if (outcome.value.counterRegressed) {
      if (!(await this.credentials.flagClone(scope.db, credential.credentialId, tx.id, pending.challenge))) {
        // The challenge was used meanwhile (the sign-in it belonged to stored this counter): a replay that lost
        // the race. Thrown, not a verdict: the transaction is no longer pending, so there is no attempt to spend.
        throw new DomainError(ErrorCode.UNAUTHENTICATED, Reason.WEBAUTHN_CHALLENGE_MISMATCH, 'The passkey response answers a challenge that was already used; begin again.');
      }
      return { ok: false, refusal: counterRegression(rp, Number(credential.signCount), outcome.value.newCounter) };
    }
    // A usernameless flow belongs to the user its credential names (the engine assigns the transaction).
    state.user = owner;
    const { newCounter, backedUp } = outcome.value;
    return {
      ok: true,
      consume: { path: 'challenge', equals: pending.challenge },
      afterRecorded: () => this.credentials.recordUse(scope.db, credential.credentialId, newCounter, backedUp),
    };
  }

  wrongProof(attemptsLeft?: number, refusal?: Refusal): DomainError {
    const metadata = { ...(refusal?.metadata ?? {}), ...(attemptsLeft === undefined ? {} : { attemptsLeft: String(attemptsLeft) }) };
    return new DomainError(ErrorCode.UNAUTHENTICATED, refusal?.reason ?? Reason.WEBAUTHN_RESPONSE_INVALID, refusal?.message ?? 'The passkey response was refused.', {
      metadata,
    });
  }

  isEnrolled(db: TenantDb, user: UserEntity): Promise<boolean> {
    return this.credentials.hasAny(db, user.id);
  }

  /** A credential id that looks like a real one, the same on every call for a login (so it reveals nothing about the account). */
  private standInCredentialId(sectorId: string, login: string): string {
    return this.box.mac(FAKE_CREDENTIAL_MAC, `${sectorId}:${login.trim().toLowerCase()}`);
  }
}

/** A passkey must verify the user unless a password was proven before it (then it is the possession factor). */
function requiresUserVerification(tx: AuthTransactionEntity | undefined): boolean {
  return !tx || !tx.factors.includes('PASSWORD');
}
