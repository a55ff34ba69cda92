import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { OtpRepository } from '../otp/otp.repository';
import { OtpService } from '../otp/otp.service';
import { AuthTransactionRepository } from './engine/auth-transaction.repository';
import { SignInEngine } from './engine/sign-in-engine';
import { AuthResultResponse, OtpBeginDto, OtpBeginResponse, OtpLoginDto, PasswordLoginDto } from './engine/auth.dto';
import { OTP_ASSURANCE, pendingCodeOf, SentCodeStrategy } from '../otp/sent-code.strategy';
import { TotpStrategy } from '../otp/totp.strategy';
import { PasswordStrategy } from './password/password.strategy';

/** The challenge a flow begun by a one-time code waits for. */
const CODE_CHALLENGE = OTP_ASSURANCE.challengeType ?? '';

/** The sign-in operations of the interface: password (11), one-time-code begin (12) and code (13). */
@Injectable()
export class LoginService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly engine: SignInEngine,
    private readonly transactions: AuthTransactionRepository,
    private readonly registrations: OtpRepository,
    private readonly otp: OtpService,
    private readonly password: PasswordStrategy,
    private readonly sentCode: SentCodeStrategy,
    private readonly totp: TotpStrategy,
  ) {}

  /** Operation 11: verifies a password, starting or continuing a transaction. */
  async passwordStep(dto: PasswordLoginDto, clientIp: string): Promise<AuthResultResponse> {
    const password = dto.password ?? '';
    const state = await this.engine.load(dto, clientIp, () => {
      if (password === '') throw DomainError.invalidField('password', 'is required');
    });
    return this.engine.verify(this.password, state, password);
  }

  /**
   * Operation 12: sends a code to the chosen (or primary) verified registration
   * and records it on the transaction; a TOTP registration sends nothing.
   *
   * A flow that has no factor yet (started here by username alone) costs the
   * account's owner nothing: its answers do not depend on whether the user or a
   * factor exists, it gets one code per cooldown like any transaction, new such
   * flows are counted per client address, and a factor receives at most
   * OTP_ANONYMOUS_SENDS_PER_HOUR unanswered codes from such flows. A flow past
   * its first factor (the owner's own) is exempt from that cap.
   */
  async otpBegin(dto: OtpBeginDto, clientIp: string): Promise<OtpBeginResponse> {
    const state = await this.engine.load(dto, clientIp);
    const anonymous = !state.tx || state.tx.factors.length === 0;
    if (state.tx) {
      // One code per transaction per cooldown, for known and unknown users alike.
      const wait = await this.transactions.claimCodeSend(state.scope.db, state.tx.id, this.config.otpResendCooldownSeconds);
      if (wait > 0) throw this.otp.cooldownError(wait);
    } else {
      await this.engine.startAnonymousFlow(state, CODE_CHALLENGE, { codeSentAt: new Date().toISOString() });
    }
    const answer = { transactionID: state.tx!.id };
    const verified = state.user ? (await this.registrations.listForUser(state.scope.db, state.user.id)).filter((r) => r.verifiedAt) : [];
    const chosen = dto.registrationID ? verified.find((r) => r.id === dto.registrationID) : verified[0];
    if (!chosen) {
      if (anonymous) return answer;
      if (dto.registrationID) throw DomainError.notFound(Reason.OTP_REGISTRATION_NOT_FOUND, 'No such verified OTP registration for this user.');
      throw DomainError.failedPrecondition(Reason.NO_OTP_REGISTRATION, 'The user has no verified one-time-code factor.');
    }
    if (chosen.type === 'totp') await this.engine.begin(this.totp, state, chosen);
    else await this.engine.begin(this.sentCode, state, { registration: chosen, anonymous });
    return answer;
  }

  /**
   * Operation 13: verifies a one-time code (in `password`, or `code`) for the
   * transaction — the code otp/begin sent, or else an authenticator-app code
   * (which may also start a flow). A wrong code uses up one of the transaction's
   * attempts (the last one kills it).
   */
  async otpStep(dto: OtpLoginDto, clientIp: string): Promise<AuthResultResponse> {
    const code = (dto.code ?? dto.password ?? '').trim();
    if (!code) throw DomainError.invalidField('password', 'must carry the one-time code (or send it as code)');
    const state = await this.engine.load(dto, clientIp);
    if (!state.tx) await this.engine.startAnonymousFlow(state, CODE_CHALLENGE);
    const strategy = state.user && pendingCodeOf(state).codeMac ? this.sentCode : this.totp;
    return this.engine.verify(strategy, state, code);
  }
}
