import { Injectable, OnModuleInit } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { OtpRepository } from './otp.repository';
import { OtpService } from './otp.service';
import { UserEntity } from '../user/user.entity';
import { UserRepository } from '../user/user.repository';
import { FactorRegistry } from '../auth/engine/factor-registry';
import { BeginOutcome, FactorStrategy, StepState, Verdict } from '../auth/engine/factor-strategy';
import { OTP_ASSURANCE } from './sent-code.strategy';

/**
 * Email-MFA enrollment during sign-in (signup in an MFA-required sector, or a
 * password login left at MFA_ENROLLMENT_REQUIRED): begin mails a code to the
 * user's email as a new, unverified email registration; a right code verifies
 * the registration (so it becomes the user's second factor), and once the factor
 * is recorded the email counts as verified.
 */
@Injectable()
export class EmailEnrollmentStrategy implements FactorStrategy<string, UserEntity>, OnModuleInit {
  readonly id = 'email-enrollment';
  readonly assurance = OTP_ASSURANCE;
  readonly guess = 'code' as const;
  readonly spendsAttempt = true;

  constructor(
    private readonly registry: FactorRegistry,
    private readonly otp: OtpService,
    private readonly registrations: OtpRepository,
    private readonly users: UserRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async begin(state: StepState, user: UserEntity): Promise<BeginOutcome<void>> {
    await this.otp.enroll(this.targetOf(state, user), { type: 'email', destination: user.email }, state.clientIp);
    return { answer: undefined };
  }

  async precheck(state: StepState): Promise<void> {
    if (state.user && !(await this.registrationOf(state, state.user))) {
      throw DomainError.failedPrecondition(Reason.CODE_EXPIRED, 'No code was sent for this enrollment; begin it first.');
    }
  }

  async verify(state: StepState, code: string): Promise<Verdict> {
    const user = state.user;
    const registration = user ? await this.registrationOf(state, user) : null;
    if (!user || !registration) return { ok: false };
    try {
      await this.otp.verify(this.targetOf(state, user), registration.id, code, false);
    } catch (err) {
      if (err instanceof DomainError && err.reason === Reason.INVALID_CODE) return { ok: false };
      throw err;
    }
    return { ok: true, afterRecorded: () => this.users.update(state.scope.db, user.id, { emailVerified: true }) };
  }

  wrongProof(attemptsLeft?: number): DomainError {
    return this.otp.invalidCode(attemptsLeft);
  }

  private registrationOf(state: StepState, user: UserEntity) {
    return this.registrations.findByDestination(state.scope.db, user.id, 'email', user.email);
  }

  private targetOf(state: StepState, user: UserEntity) {
    return { id: user.id, isAdmin: user.isAdmin, scope: state.scope };
  }
}
