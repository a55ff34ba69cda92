import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { OtpRepository } from '../otp/otp.repository';
import { ThrottleService } from '../throttle/throttle.service';
import { OtpService } from '../otp/otp.service';
import { UserEntity } from '../user/user.entity';
import { UserRepository } from '../user/user.repository';
import { UserService } from '../user/user.service';
import { AuthFlowService, StepContext } from './auth-flow.service';
import { AuthTransactionEntity } from './auth-transaction.entity';
import { AuthTransactionRepository } from './auth-transaction.repository';
import { AuthResultResponse, SignupDto, SignupMfaBeginDto, SignupMfaVerifyDto, SignupMfaVerifyResponse } from './dto/auth.dto';

const ENROLLMENT = 'EMAIL_OTP_ENROLLMENT';

/**
 * Self sign-up (CONVENTIONS §4) and email-MFA enrollment of a transaction left at
 * MFA_ENROLLMENT_REQUIRED: the code goes to the user's email as a new (unverified)
 * email registration; verifying it marks the email verified, makes the
 * registration a factor, and completes the transaction with a token.
 */
@Injectable()
export class SignupService {
  constructor(
    private readonly flows: AuthFlowService,
    private readonly userService: UserService,
    private readonly users: UserRepository,
    private readonly otp: OtpService,
    private readonly otpRegistrations: OtpRepository,
    private readonly transactions: AuthTransactionRepository,
    private readonly throttle: ThrottleService,
  ) {}

  async signup(dto: SignupDto, clientIp: string): Promise<AuthResultResponse> {
    const ctx = await this.flows.context(dto.sectorID);
    if (!ctx.settings.selfSignUpAllowed) {
      throw DomainError.permissionDenied('Self sign-up is not allowed in this sector.', Reason.SIGNUP_NOT_ALLOWED);
    }
    // Every signup costs a password hash: counted per address before any work.
    await this.throttle.count({ clientIp }, 'signup');
    const user = await this.userService.signUp(ctx.route, dto);
    if (!ctx.settings.mfaRequired) return this.flows.recordFactor(ctx, user, undefined, 'PASSWORD', clientIp);
    const tx = await this.flows.startTransaction(ctx, user, ['PASSWORD'], ENROLLMENT, clientIp);
    await this.sendCode(ctx, user, clientIp);
    return { transactionID: tx.id, status: 'MFA_ENROLLMENT_REQUIRED', challengeType: ENROLLMENT };
  }

  async mfaBegin(dto: SignupMfaBeginDto, clientIp: string): Promise<AuthResultResponse> {
    const { ctx, tx, user } = await this.enrollmentTransaction(dto.sectorID, dto.transactionId, dto.email);
    await this.sendCode(ctx, user, clientIp);
    return { transactionID: tx.id, status: 'MFA_ENROLLMENT_REQUIRED', challengeType: ENROLLMENT };
  }

  async mfaVerify(dto: SignupMfaVerifyDto, clientIp: string): Promise<SignupMfaVerifyResponse> {
    const { ctx, tx, user } = await this.enrollmentTransaction(dto.sectorID, dto.transactionId, dto.email);
    const registration = await this.otpRegistrations.findByDestination(ctx.db, user.id, 'email', user.email);
    if (!registration) throw DomainError.failedPrecondition(Reason.CODE_EXPIRED, 'No code was sent for this enrollment; begin it first.');
    const reservation = await this.throttle.reserve(this.flows.throttleSubject(ctx, user, user.username, clientIp), 'code');
    try {
      await this.otp.verify(this.targetOf(ctx, user), registration.id, dto.code);
    } catch (err) {
      // A wrong code also uses up one of the transaction's attempts (at most 5 wrong
      // tries before the transaction is dead), so a resent code does not bring new guesses.
      if (!(err instanceof DomainError) || err.reason !== Reason.INVALID_CODE) throw err;
      const left = await this.transactions.spendAttempt(ctx.db, tx.id);
      if (left < 0) throw DomainError.failedPrecondition(Reason.TRANSACTION_FAILED, 'The authentication transaction failed (too many wrong codes); start again.');
      throw this.otp.invalidCode(left);
    }
    await reservation.succeeded();
    await this.users.update(ctx.db, user.id, { emailVerified: true });
    const result = await this.flows.recordFactor(ctx, user, tx, 'OTP', clientIp);
    if (!result.token) throw DomainError.failedPrecondition(Reason.TRANSACTION_MISMATCH, 'The transaction needs a further step.');
    return { token: result.token };
  }

  /** A pending transaction waiting for email enrollment, of the user whose email is given. */
  private async enrollmentTransaction(sectorId: string | undefined, transactionId: string, email: string) {
    const ctx = await this.flows.context(sectorId);
    const tx: AuthTransactionEntity = await this.flows.pendingTransaction(ctx, transactionId);
    const user = tx.userId ? await this.users.findById(ctx.db, tx.userId) : null;
    if (!user || tx.pendingChallenge !== ENROLLMENT || user.email.toLowerCase() !== email.trim().toLowerCase()) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_MISMATCH, 'The transaction is not waiting for the email enrollment of this address.');
    }
    return { ctx, tx, user };
  }

  private async sendCode(ctx: StepContext, user: UserEntity, clientIp: string): Promise<void> {
    await this.otp.create(this.targetOf(ctx, user), { type: 'email', destination: user.email }, clientIp);
  }

  private targetOf(ctx: StepContext, user: UserEntity) {
    return { id: user.id, sectorId: user.sectorId, sector: ctx.route };
  }
}
