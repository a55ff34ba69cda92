import { Injectable, OnModuleInit } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { OtpRegistrationEntity } from './otp-registration.entity';
import { OtpRepository } from './otp.repository';
import { OtpService } from './otp.service';
import { TenantDb } from '../tenancy/tenant-db';
import { UserEntity } from '../user/user.entity';
import { AuthTransactionRepository } from '../auth/engine/auth-transaction.repository';
import { FactorRegistry } from '../auth/engine/factor-registry';
import { BeginOutcome, FactorStrategy, SharedReads, StepState, Verdict } from '../auth/engine/factor-strategy';
import { OTP_ASSURANCE, PENDING_CODE, pendingCodeOf } from './sent-code.strategy';

/**
 * A code from an authenticator app (TOTP). Begin only notes which registration
 * the transaction expects (nothing is sent); verify accepts one 30-second step of
 * drift and claims the step with a conditional UPDATE, so a code is never
 * accepted twice. A TOTP code may also be the first step of a flow.
 */
@Injectable()
export class TotpStrategy implements FactorStrategy<string, OtpRegistrationEntity>, OnModuleInit {
  readonly id = 'totp';
  readonly assurance = OTP_ASSURANCE;
  readonly guess = 'code' as const;
  readonly spendsAttempt = true;
  readonly pending = PENDING_CODE;

  constructor(
    private readonly registry: FactorRegistry,
    private readonly registrations: OtpRepository,
    private readonly transactions: AuthTransactionRepository,
    private readonly otp: OtpService,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async begin(state: StepState, registration: OtpRegistrationEntity): Promise<BeginOutcome<void>> {
    if (state.tx) await this.transactions.setPending(state.scope.db, state.tx.id, PENDING_CODE.key, { registrationId: registration.id }, OTP_ASSURANCE.challengeType);
    return { answer: undefined };
  }

  async verify(state: StepState, code: string): Promise<Verdict> {
    if (!state.user) return { ok: false };
    const expected = pendingCodeOf(state).registrationId;
    const totps = (await this.registrations.listForUser(state.scope.db, state.user.id)).filter(
      (r) => r.type === 'totp' && r.verifiedAt && (!expected || r.id === expected),
    );
    for (const r of totps) if (await this.otp.acceptTotp(state.scope.db, r, code)) return { ok: true };
    return { ok: false };
  }

  wrongProof(attemptsLeft?: number): DomainError {
    return this.otp.invalidCode(attemptsLeft);
  }

  async isEnrolled(db: TenantDb, user: UserEntity, shared: SharedReads): Promise<boolean> {
    const types = await this.registrations.verifiedTypesOnce(db, user.id, shared);
    return types.has('totp');
  }
}
