import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SecretBox } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { SectorMessages } from '../mail/sector-messages';
import { codeMacInput, newOtpCode, OTP_CODE_MAC } from './otp-codes';
import { OtpRegistrationEntity } from './otp-registration.entity';
import { OtpRepository } from './otp.repository';
import { OtpService } from './otp.service';
import { TenantDb } from '../tenancy/tenant-db';
import { UserEntity } from '../user/user.entity';
import { AuthTransactionRepository } from '../auth/engine/auth-transaction.repository';
import type { Assurance } from '../auth/engine/auth-policy';
import { FactorRegistry } from '../auth/engine/factor-registry';
import { BeginOutcome, FactorStrategy, PendingSlot, SharedReads, StepState, Verdict } from '../auth/engine/factor-strategy';

/** The code a transaction waits for, kept in its internal data (`data.otp`); only its MAC is stored. */
export interface PendingCode {
  registrationId?: string;
  codeMac?: string;
  expiresAt?: string;
  /** Sent to a flow that had no factor yet: counted against the factor's hourly cap until answered. */
  anonymous?: boolean;
}

/** Where the one-time-code strategies keep their pending code on the transaction (`data.otp`). */
export const PENDING_CODE = new PendingSlot<PendingCode>('otp');

export function pendingCodeOf(state: StepState): PendingCode {
  return PENDING_CODE.of(state.tx) ?? {};
}

/** What a one-time code is worth, whichever strategy checked it (sent, authenticator app, enrollment): a second factor. */
export const OTP_ASSURANCE: Assurance = { factor: 'OTP', kind: 'possession', secondFactor: true, satisfiesMfaAlone: false, challengeType: 'OTP', amr: ['otp'] };

/** What begins a sent code: the registration to send it to, and whether the flow has no factor yet. */
export interface SendCode {
  registration: OtpRegistrationEntity;
  anonymous: boolean;
}

/**
 * A one-time code sent by mail or SMS to a verified email or phone registration
 * (operations 12 and 13). Begin sends a fresh code and records its MAC on the
 * transaction; verify compares, and a right code is consumed by the same
 * conditional UPDATE that records the factor, so of concurrent submissions of one
 * code exactly one succeeds.
 */
@Injectable()
export class SentCodeStrategy implements FactorStrategy<string, SendCode>, OnModuleInit {
  readonly id = 'otp-sent';
  readonly assurance = OTP_ASSURANCE;
  readonly guess = 'code' as const;
  readonly spendsAttempt = true;
  readonly pending = PENDING_CODE;

  constructor(
    private readonly registry: FactorRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registrations: OtpRepository,
    private readonly transactions: AuthTransactionRepository,
    private readonly otp: OtpService,
    private readonly box: SecretBox,
    private readonly messages: SectorMessages,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /**
   * Sends a code to `registration` for the transaction. A flow with no factor yet
   * (`anonymous`) sends only within the factor's hourly cap of unanswered codes;
   * past it nothing is sent and the caller answers as if it had been.
   */
  async begin(state: StepState, { registration, anonymous }: SendCode): Promise<BeginOutcome<void>> {
    const { scope, tx, user } = state;
    const done = { answer: undefined };
    if (!tx || !user) return done;
    if (anonymous && !(await this.registrations.claimAnonymousSend(scope.db, registration.id, this.config.otpAnonymousSendsPerHour))) return done;
    const code = newOtpCode();
    const pending: PendingCode = {
      registrationId: registration.id,
      codeMac: this.box.mac(OTP_CODE_MAC, codeMacInput(tx.id, code)),
      expiresAt: new Date(Date.now() + this.config.otpCodeTtlSeconds * 1000).toISOString(),
      anonymous,
    };
    await this.messages.inTransaction(scope, async (t) => {
      // Stored here, not by the engine: the code's MAC and its message are written in one database transaction.
      if (!(await this.transactions.setPending(t, tx.id, PENDING_CODE.key, pending, OTP_ASSURANCE.challengeType))) {
        throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction was completed or expired meanwhile.');
      }
      await this.otp.enqueueCode(t, scope, registration, code, { email: user.email, username: user.username, locale: user.locale });
    });
    return done;
  }

  precheck(state: StepState): void {
    const pending = pendingCodeOf(state);
    if (state.user && pending.codeMac && (!pending.expiresAt || Date.parse(pending.expiresAt) <= Date.now())) {
      throw DomainError.failedPrecondition(Reason.CODE_EXPIRED, 'The code has expired; ask for a new one.');
    }
  }

  async verify(state: StepState, code: string): Promise<Verdict> {
    const pending = pendingCodeOf(state);
    if (!state.tx || !pending.codeMac || !this.box.macEquals(OTP_CODE_MAC, codeMacInput(state.tx.id, code), pending.codeMac)) return { ok: false };
    const registrationId = pending.registrationId;
    return {
      ok: true,
      consume: { path: 'codeMac', equals: pending.codeMac },
      // An answered code is no abuse: it gives its send back to the factor's hourly cap.
      afterRecorded: pending.anonymous && registrationId ? () => this.registrations.refundAnonymousSend(state.scope.db, registrationId) : undefined,
    };
  }

  wrongProof(attemptsLeft?: number): DomainError {
    return this.otp.invalidCode(attemptsLeft);
  }

  async isEnrolled(db: TenantDb, user: UserEntity, shared: SharedReads): Promise<boolean> {
    const types = await this.registrations.verifiedTypesOnce(db, user.id, shared);
    return types.has('email') || types.has('sms');
  }

  /** Removes the one-time-code registrations (of every type: email, SMS, TOTP) left unverified past OTP_PENDING_REGISTRATION_TTL_SECONDS. */
  sweep(db: TenantDb): Promise<number> {
    return this.registrations.purgeStalePending(db, this.config.otpPendingRegistrationTtlSeconds);
  }
}
