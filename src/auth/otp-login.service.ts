import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SecretBox } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { MailService } from '../mail/mail.service';
import { codeMacInput, newOtpCode, OTP_CODE_MAC } from '../otp/otp-codes';
import { OtpRepository } from '../otp/otp.repository';
import { OtpService } from '../otp/otp.service';
import { ThrottleService, ThrottleSubject } from '../throttle/throttle.service';
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
   * and records it on the transaction; a TOTP registration sends nothing. A new
   * flow for an unknown user (or one without a factor) answers the same way and
   * sends nothing, so the endpoint does not reveal who exists.
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
    let tx = existing;
    if (!tx) {
      tx = await this.flows.startTransaction(ctx, user, [], 'OTP', clientIp);
    }
    const registrations = user ? (await this.otpRegistrations.listForUser(ctx.db, user.id)).filter((r) => r.verifiedAt) : [];
    const chosen = dto.registrationID ? registrations.find((r) => r.id === dto.registrationID) : registrations[0];
    if (!user || !chosen) {
      if (!existing) return { transactionID: tx.id };
      if (dto.registrationID) throw DomainError.notFound(Reason.OTP_REGISTRATION_NOT_FOUND, 'No such verified OTP registration for this user.');
      throw DomainError.failedPrecondition(Reason.NO_OTP_REGISTRATION, 'The user has no verified one-time-code factor.');
    }
    if (chosen.type === 'totp') {
      await this.transactions.setPendingOtp(ctx.db, tx.id, { registrationId: chosen.id });
      return { transactionID: tx.id };
    }
    // One code per registration per cooldown, whatever the transaction. A new flow
    // started by username alone answers like any other (no enumeration) and sends nothing.
    if (!(await this.otp.trySend(ctx.db, chosen.id, existing !== undefined))) return { transactionID: tx.id };
    const code = newOtpCode();
    const pending = {
      registrationId: chosen.id,
      codeMac: this.box.mac(OTP_CODE_MAC, codeMacInput(tx.id, code)),
      expiresAt: new Date(Date.now() + this.config.otpCodeTtlSeconds * 1000).toISOString(),
      sentAt: new Date().toISOString(),
    };
    const transactionId = tx.id;
    await ctx.db.transaction(async (t) => {
      if (!(await this.transactions.setPendingOtp(t, transactionId, pending))) {
        throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction was completed or expired meanwhile.');
      }
      await this.otp.enqueueCode(t, ctx.route, chosen, code, { email: user.email, username: user.username });
    });
    this.mail.kick(ctx.route.tenant.id);
    return { transactionID: transactionId };
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
      tx = await this.flows.startTransaction(ctx, user, [], 'OTP', clientIp);
    }
    const attempt: ThrottleSubject = {
      tenantId: ctx.route.tenant.id,
      sectorId: ctx.route.sectorId,
      login: user?.username ?? dto.username ?? tx.id,
      clientIp,
    };
    await this.throttle.assertAllowed(attempt, 'code');
    const pending = (tx.data?.otp ?? {}) as { registrationId?: string; codeMac?: string; expiresAt?: string };
    let accepted = false;
    if (user && pending.codeMac) {
      if (!pending.expiresAt || Date.parse(pending.expiresAt) <= Date.now()) {
        throw DomainError.failedPrecondition(Reason.CODE_EXPIRED, 'The code has expired; ask for a new one.');
      }
      accepted = this.box.macEquals(OTP_CODE_MAC, codeMacInput(tx.id, code), pending.codeMac);
    } else if (user) {
      const totps = (await this.otpRegistrations.listForUser(ctx.db, user.id)).filter(
        (r) => r.type === 'totp' && r.verifiedAt && (!pending.registrationId || r.id === pending.registrationId),
      );
      for (const r of totps) if (!accepted) accepted = await this.otp.acceptTotp(ctx.db, r, code);
    }
    if (!accepted || !user) {
      await this.throttle.recordFailure(attempt, 'code');
      const left = await this.transactions.spendAttempt(ctx.db, tx.id);
      if (left < 0) throw DomainError.failedPrecondition(Reason.TRANSACTION_FAILED, 'The authentication transaction failed (too many wrong codes); start again.');
      throw this.otp.invalidCode(left);
    }
    await this.throttle.recordSuccess(attempt, 'code');
    return this.flows.recordFactor(ctx, user, tx, 'OTP', clientIp, pending.codeMac);
  }
}
