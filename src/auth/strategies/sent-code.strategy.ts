import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { SecretBox } from '../../common/crypto/secret-box';
import { DomainError } from '../../common/errors/domain-error';
import { Reason } from '../../common/errors/error-codes';
import { SectorMessages } from '../../mail/sector-messages';
import { codeMacInput, newOtpCode, OTP_CODE_MAC } from '../../otp/otp-codes';
import { OtpRegistrationEntity } from '../../otp/otp-registration.entity';
import { OtpRepository } from '../../otp/otp.repository';
import { OtpService } from '../../otp/otp.service';
import { TenantDb } from '../../tenancy/tenant-db';
import { UserEntity } from '../../user/user.entity';
import { AuthTransactionRepository } from '../engine/auth-transaction.repository';
import { FactorStrategy, StepState, Verdict } from '../engine/factor-strategy';

/** The code a transaction waits for, kept in its internal data (`data.otp`); only its MAC is stored. */
export interface PendingCode {
  registrationId?: string;
  codeMac?: string;
  expiresAt?: string;
  /** Sent to a flow that had no factor yet: counted against the factor's hourly cap until answered. */
  anonymous?: boolean;
}

export function pendingCodeOf(state: StepState): PendingCode {
  return (state.tx?.data?.otp ?? {}) as PendingCode;
}

/**
 * A one-time code sent by mail or SMS to a verified email or phone registration
 * (operations 12 and 13). Begin sends a fresh code and records its MAC on the
 * transaction; verify compares, and a right code is consumed by the same
 * conditional UPDATE that records the factor, so of concurrent submissions of one
 * code exactly one succeeds.
 */
@Injectable()
export class SentCodeStrategy implements FactorStrategy<string> {
  readonly factor = 'OTP' as const;
  readonly guess = 'code' as const;
  readonly spendsAttempt = true;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registrations: OtpRepository,
    private readonly transactions: AuthTransactionRepository,
    private readonly otp: OtpService,
    private readonly box: SecretBox,
    private readonly messages: SectorMessages,
  ) {}

  /**
   * Sends a code to `registration` for the transaction. A flow with no factor yet
   * (`anonymous`) sends only within the factor's hourly cap of unanswered codes;
   * past it nothing is sent and the caller answers as if it had been.
   */
  async begin(state: StepState, registration: OtpRegistrationEntity, anonymous: boolean): Promise<void> {
    const { scope, tx, user } = state;
    if (!tx || !user) return;
    if (anonymous && !(await this.registrations.claimAnonymousSend(scope.db, registration.id, this.config.otpAnonymousSendsPerHour))) return;
    const code = newOtpCode();
    const pending: PendingCode = {
      registrationId: registration.id,
      codeMac: this.box.mac(OTP_CODE_MAC, codeMacInput(tx.id, code)),
      expiresAt: new Date(Date.now() + this.config.otpCodeTtlSeconds * 1000).toISOString(),
      anonymous,
    };
    await this.messages.inTransaction(scope, async (t) => {
      if (!(await this.transactions.setPendingOtp(t, tx.id, pending as Record<string, unknown>))) {
        throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction was completed or expired meanwhile.');
      }
      await this.otp.enqueueCode(t, scope, registration, code, { email: user.email, username: user.username });
    });
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
      consumeCodeMac: pending.codeMac,
      // An answered code is no abuse: it gives its send back to the factor's hourly cap.
      afterRecorded: pending.anonymous && registrationId ? () => this.registrations.refundAnonymousSend(state.scope.db, registrationId) : undefined,
    };
  }

  wrongProof(attemptsLeft?: number): DomainError {
    return this.otp.invalidCode(attemptsLeft);
  }

  isEnrolled(db: TenantDb, user: UserEntity): Promise<boolean> {
    return this.registrations.hasVerified(db, user.id, ['email', 'sms']);
  }
}
