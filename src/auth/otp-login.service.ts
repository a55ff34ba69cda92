import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SecretBox } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { MailService } from '../mail/mail.service';
import { codeMacInput, newOtpCode, OTP_CODE_MAC } from '../otp/otp-codes';
import { OtpRepository } from '../otp/otp.repository';
import { OtpService } from '../otp/otp.service';
import { ThrottleService } from '../throttle/throttle.service';
import { UserRepository } from '../user/user.repository';
import { AuthFlowService } from './auth-flow.service';
import { AuthTransactionRepository } from './auth-transaction.repository';
import { AuthResultResponse, OtpBeginDto, OtpBeginResponse, OtpLoginDto } from './dto/auth.dto';

/** The one-time-code steps of a sign-in (operations 12 and 13), on the transaction engine. */
@Injectable()
export class OtpLoginService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly flows: AuthFlowService,
    private readonly users: UserRepository,
    private readonly transactions: AuthTransactionRepository,
    private readonly otpRegistrations: OtpRepository,
    private readonly otp: OtpService,
    private readonly box: SecretBox,
    private readonly mail: MailService,
    private readonly throttle: ThrottleService,
  ) {}

  /**
   * Operation 12: sends a code to the chosen (or primary) verified registration
   * and records it on the transaction; a TOTP registration sends nothing.
   *
   * A flow that has no factor yet (started here by username alone) costs the
   * account's owner nothing: its answers do not depend on whether the user or a
   * factor exists, it gets one code per cooldown like any transaction, new such
   * flows are counted per client address, and a factor receives at most
   * OTP_ANONYMOUS_SENDS_PER_HOUR unanswered codes from such flows (past that it
   * answers the same and sends nothing). A flow past its first factor (the
   * owner's own) is exempt from that cap.
   */
  async otpBegin(dto: OtpBeginDto, clientIp: string): Promise<OtpBeginResponse> {
    const ctx = await this.flows.context(dto.sectorID);
    const existing = dto.transactionID ? await this.flows.pendingTransaction(ctx, dto.transactionID) : undefined;
    if (!existing && !dto.username) throw DomainError.invalidField('username', 'is required when starting a new flow');
    const user = existing?.userId
      ? await this.users.findById(ctx.db, existing.userId)
      : existing
        ? null
        : await this.users.findByLogin(ctx.db, ctx.route.sectorId, dto.username ?? '');
    if (existing && user && dto.username && !this.flows.matchesLogin(user, dto.username)) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_MISMATCH, 'The transaction belongs to another user.');
    }
    const anonymous = !existing || existing.factors.length === 0;
    let tx = existing;
    if (tx) {
      // One code per transaction per cooldown, for known and unknown users alike.
      const wait = await this.transactions.claimCodeSend(ctx.db, tx.id, this.config.otpResendCooldownSeconds);
      if (wait > 0) throw this.otp.cooldownError(wait);
    } else {
      await this.throttle.count({ clientIp }, 'flow');
      tx = await this.flows.startTransaction(ctx, user, [], 'OTP', clientIp, { codeSentAt: new Date().toISOString() });
    }
    const answer = { transactionID: tx.id };
    const registrations = user ? (await this.otpRegistrations.listForUser(ctx.db, user.id)).filter((r) => r.verifiedAt) : [];
    const chosen = dto.registrationID ? registrations.find((r) => r.id === dto.registrationID) : registrations[0];
    if (!user || !chosen) {
      if (anonymous) return answer;
      if (dto.registrationID) throw DomainError.notFound(Reason.OTP_REGISTRATION_NOT_FOUND, 'No such verified OTP registration for this user.');
      throw DomainError.failedPrecondition(Reason.NO_OTP_REGISTRATION, 'The user has no verified one-time-code factor.');
    }
    if (chosen.type === 'totp') {
      await this.transactions.setPendingOtp(ctx.db, tx.id, { registrationId: chosen.id });
      return answer;
    }
    if (anonymous && !(await this.otpRegistrations.claimAnonymousSend(ctx.db, chosen.id, this.config.otpAnonymousSendsPerHour))) return answer;
    const code = newOtpCode();
    const pending = {
      registrationId: chosen.id,
      codeMac: this.box.mac(OTP_CODE_MAC, codeMacInput(tx.id, code)),
      expiresAt: new Date(Date.now() + this.config.otpCodeTtlSeconds * 1000).toISOString(),
      anonymous,
    };
    const transactionId = tx.id;
    await ctx.db.transaction(async (t) => {
      if (!(await this.transactions.setPendingOtp(t, transactionId, pending))) {
        throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction was completed or expired meanwhile.');
      }
      await this.otp.enqueueCode(t, ctx.route, chosen, code, { email: user.email, username: user.username });
    });
    this.mail.kick(ctx.route.tenant.id);
    return answer;
  }

  /**
   * Operation 13: verifies a one-time code (in `password`, or `code`) for the
   * transaction: the code sent by otp/begin, or a TOTP code. A wrong code uses up
   * one of the transaction's attempts (the last one kills it); a right one is
   * consumed by the same conditional UPDATE that moves the transaction on, so of
   * concurrent submissions of one code exactly one succeeds.
   */
  async otpStep(dto: OtpLoginDto, clientIp: string): Promise<AuthResultResponse> {
    const code = (dto.code ?? dto.password ?? '').trim();
    if (!code) throw DomainError.invalidField('password', 'must carry the one-time code (or send it as code)');
    const ctx = await this.flows.context(dto.sectorID);
    let tx = dto.transactionID ? await this.flows.pendingTransaction(ctx, dto.transactionID) : undefined;
    if (!tx && !dto.username) throw DomainError.invalidField('username', 'is required when starting a new flow');
    const user = tx
      ? tx.userId
        ? await this.users.findById(ctx.db, tx.userId)
        : null
      : await this.users.findByLogin(ctx.db, ctx.route.sectorId, dto.username ?? '');
    if (tx && user && dto.username && !this.flows.matchesLogin(user, dto.username)) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_MISMATCH, 'The transaction belongs to another user.');
    }
    if (!tx) {
      // A TOTP code as the first step of a new flow.
      await this.throttle.count({ clientIp }, 'flow');
      tx = await this.flows.startTransaction(ctx, user, [], 'OTP', clientIp);
    }
    const pending = (tx.data?.otp ?? {}) as { registrationId?: string; codeMac?: string; expiresAt?: string; anonymous?: boolean };
    if (user && pending.codeMac && (!pending.expiresAt || Date.parse(pending.expiresAt) <= Date.now())) {
      throw DomainError.failedPrecondition(Reason.CODE_EXPIRED, 'The code has expired; ask for a new one.');
    }
    const reservation = await this.throttle.reserve(this.flows.throttleSubject(ctx, user, dto.username ?? tx.id, clientIp), 'code');
    let accepted = false;
    if (user && pending.codeMac) {
      accepted = this.box.macEquals(OTP_CODE_MAC, codeMacInput(tx.id, code), pending.codeMac);
    } else if (user) {
      const totps = (await this.otpRegistrations.listForUser(ctx.db, user.id)).filter(
        (r) => r.type === 'totp' && r.verifiedAt && (!pending.registrationId || r.id === pending.registrationId),
      );
      for (const r of totps) if (!accepted) accepted = await this.otp.acceptTotp(ctx.db, r, code);
    }
    if (!accepted || !user) {
      const left = await this.transactions.spendAttempt(ctx.db, tx.id);
      if (left < 0) throw DomainError.failedPrecondition(Reason.TRANSACTION_FAILED, 'The authentication transaction failed (too many wrong codes); start again.');
      throw this.otp.invalidCode(left);
    }
    await reservation.succeeded();
    const result = await this.flows.recordFactor(ctx, user, tx, 'OTP', clientIp, pending.codeMac);
    // An answered code is no abuse: it gives its send back to the factor's hourly cap.
    if (pending.anonymous && pending.registrationId) await this.otpRegistrations.refundAnonymousSend(ctx.db, pending.registrationId);
    return result;
  }
}
