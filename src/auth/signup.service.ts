import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { ThrottleService } from '../throttle/throttle.service';
import { UserService } from '../user/user.service';
import { AuthResultResponse, SignupDto, SignupMfaBeginDto, SignupMfaVerifyDto, SignupMfaVerifyResponse } from './engine/auth.dto';
import { SignInEngine } from './engine/sign-in-engine';
import { StepState } from './engine/factor-strategy';
import { EmailEnrollmentStrategy } from '../otp/email-enrollment.strategy';
import { PasswordStrategy } from './password/password.strategy';

const ENROLLMENT = 'EMAIL_OTP_ENROLLMENT';

/**
 * Self sign-up (where `SelfSignUpAllowed`) and email-MFA enrollment of a
 * transaction left at MFA_ENROLLMENT_REQUIRED, on the sign-in engine with the
 * email-enrollment strategy.
 */
@Injectable()
export class SignupService {
  constructor(
    private readonly engine: SignInEngine,
    private readonly userService: UserService,
    private readonly enrollment: EmailEnrollmentStrategy,
    private readonly throttle: ThrottleService,
  ) {}

  async signup(dto: SignupDto, clientIp: string): Promise<AuthResultResponse> {
    const scope = await this.engine.scopeForSignIn(dto.sectorID);
    const settings = await scope.settings();
    if (!settings.selfSignUpAllowed) {
      throw DomainError.permissionDenied('Self sign-up is not allowed in this sector.', Reason.SIGNUP_NOT_ALLOWED);
    }
    // Every signup costs a password hash: counted per address before any work.
    await this.throttle.count({ clientIp }, 'signup');
    const user = await this.userService.signUp(scope, dto);
    if (!settings.mfaRequired) return this.engine.recordFactor(scope, user, undefined, PasswordStrategy.ID, clientIp);
    const tx = await this.engine.startTransaction(scope, user, ['PASSWORD'], ENROLLMENT, clientIp);
    await this.engine.begin(this.enrollment, { scope, tx, user, login: user.username, clientIp }, user);
    return { transactionID: tx.id, status: 'MFA_ENROLLMENT_REQUIRED', challengeType: ENROLLMENT };
  }

  async mfaBegin(dto: SignupMfaBeginDto, clientIp: string): Promise<AuthResultResponse> {
    const state = await this.enrollmentState(dto.sectorID, dto.transactionId, dto.email, clientIp);
    await this.engine.begin(this.enrollment, state, state.user!);
    return { transactionID: state.tx!.id, status: 'MFA_ENROLLMENT_REQUIRED', challengeType: ENROLLMENT };
  }

  /** Operation 16: the enrollment code completes the transaction, answering only the token. */
  async mfaVerify(dto: SignupMfaVerifyDto, clientIp: string): Promise<SignupMfaVerifyResponse> {
    const state = await this.enrollmentState(dto.sectorID, dto.transactionId, dto.email, clientIp);
    const result = await this.engine.verify(this.enrollment, state, dto.code);
    if (!result.token || !result.refreshToken) throw DomainError.failedPrecondition(Reason.TRANSACTION_MISMATCH, 'The transaction needs a further step.');
    return { token: result.token, refreshToken: result.refreshToken };
  }

  /** A pending transaction waiting for email enrollment, of the user whose email is given. */
  private async enrollmentState(sectorId: string | undefined, transactionId: string, email: string, clientIp: string): Promise<StepState> {
    const state = await this.engine.load({ sectorID: sectorId, transactionID: transactionId }, clientIp);
    if (!state.user || state.tx?.pendingChallenge !== ENROLLMENT || state.user.email.toLowerCase() !== email.trim().toLowerCase()) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_MISMATCH, 'The transaction is not waiting for the email enrollment of this address.');
    }
    return { ...state, login: state.user.username };
  }
}
