import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { randomUUID } from 'node:crypto';
import { TargetUserRef } from '../settings/request-targets';
import type { Principal } from '../access/principal';
import { SecretBox } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { TenantDb } from '../tenancy/tenant-db';
import { isUuid } from '../common/wire/wire';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SectorRepository } from '../sector/sector.repository';
import { SectorMessages } from '../mail/sector-messages';
import { SectorScope } from '../settings/sector-scope';
import { StepUpService } from '../user/step-up.service';
import { UserRepository } from '../user/user.repository';
import { ThrottleService } from '../throttle/throttle.service';
import { accountRef } from '../throttle/throttle-policy';
import {
  CreateOtpRegistrationDto,
  CreateOtpRegistrationResponse,
  ListOtpRegistrationsResponse,
  OtpRegistrationIdResponse,
} from './dto/otp.dto';
import { codeMacInput, maskDestination, newOtpCode, OTP_CODE_MAC, TOTP_SECRET_SEAL } from './otp-codes';
import { OtpRegistrationEntity } from './otp-registration.entity';
import { OtpRepository } from './otp.repository';
import { matchTotp, newTotpSecret, totpUri } from './totp';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9]\d{6,14}$/;

/** How the `factorAdded` notice names each kind of factor. */
const FACTOR_NAMES: Record<OtpRegistrationEntity['type'], string> = { totp: 'authenticator app', email: 'email codes', sms: 'SMS codes' };

export interface CodeRecipient {
  email: string;
  username: string;
  /** The user's language, for the code's message. */
  locale: string;
}

/**
 * One-time-code factors: enrollment (a code to the new destination, or a TOTP
 * secret shown once), verification, removal, and sending a code to a verified
 * factor. Codes come from the CSPRNG and are stored only as a MAC keyed from
 * MASTER_KEY and bound to their flow.
 *
 * A user adding or removing their own factor needs a recent authentication
 * (StepUpService): at enrollment (verification then only completes a
 * registration made so) and at removal. A factor that becomes verified queues the
 * `factorAdded` notice to the user's email in the same database transaction.
 */
@Injectable()
export class OtpService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly otp: OtpRepository,
    private readonly users: UserRepository,
    private readonly sectors: SectorRepository,
    private readonly messages: SectorMessages,
    private readonly box: SecretBox,
    private readonly throttle: ThrottleService,
    private readonly audit: AuditService,
    private readonly stepUp: StepUpService,
  ) {}

  async list(target: TargetUserRef): Promise<ListOtpRegistrationsResponse> {
    const rows = await this.otp.listForUser(target.scope.db, target.id);
    return {
      registrations: rows.map((r) => ({ registrationID: r.id, type: r.type, destination: maskDestination(r.type, r.destination), verified: r.verifiedAt !== null })),
    };
  }

  /**
   * Adds a factor. An email or SMS destination gets a code to confirm it, so every
   * such call sends a message: sends are counted per user and per client address,
   * a user holds at most OTP_PENDING_REGISTRATIONS_MAX unverified destinations,
   * and an unverified one expires after OTP_PENDING_REGISTRATION_TTL_SECONDS.
   */
  async create(caller: Principal, target: TargetUserRef, dto: CreateOtpRegistrationDto, clientIp: string): Promise<CreateOtpRegistrationResponse> {
    await this.stepUp.require(caller, target, { currentPassword: dto.currentPassword }, clientIp, 'add or remove a sign-in method');
    return this.enroll(target, dto, clientIp);
  }

  /**
   * Adds a factor without step-up: for `create` once the caller is checked, and
   * for the email-MFA enrollment of a sign-in (which proves the password first
   * and the email by the code).
   */
  async enroll(target: TargetUserRef, dto: CreateOtpRegistrationDto, clientIp: string): Promise<CreateOtpRegistrationResponse> {
    const { db, route } = target.scope;
    const user = await this.users.findById(db, target.id);
    if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
    if (dto.type === 'totp') {
      const secret = await newTotpSecret();
      const sector = await this.sectors.findById(db, route.sectorId);
      const row = this.newRow(target.id, 'totp', '');
      row.secretSealed = this.box.seal(TOTP_SECRET_SEAL, secret);
      await this.otp.insert(db, row);
      return { registrationID: row.id, type: 'totp', secret, otpauthURL: await totpUri(secret, sector?.name || route.tenant.name, user.username) };
    }
    const destination = (dto.destination ?? '').trim();
    if (dto.type === 'email' && !EMAIL.test(destination)) throw DomainError.invalidField('destination', 'must be an email address');
    if (dto.type === 'sms' && !E164.test(destination)) throw DomainError.invalidField('destination', 'must be an E.164 number such as +14155550100');
    const ttl = this.config.otpPendingRegistrationTtlSeconds;
    await this.otp.purgeStalePending(db, ttl, target.id);
    const existing = await this.otp.findByDestination(db, target.id, dto.type, destination);
    if (existing?.verifiedAt) throw DomainError.alreadyExists(Reason.OTP_REGISTRATION_EXISTS, 'This destination is already registered.');
    if (existing) {
      const wait = await this.otp.claimSend(db, existing.id, this.config.otpResendCooldownSeconds);
      if (wait > 0) throw this.cooldownError(wait);
    }
    await this.throttle.count({ tenantId: route.tenant.id, sectorId: route.sectorId, account: accountRef(target.id, ''), clientIp }, 'send');
    const registration = existing ?? this.newRow(target.id, dto.type, destination);
    await this.messages.inTransaction(target.scope, async (tx) => {
      if (!existing) {
        if ((await this.otp.lockPendingCount(tx, target.id, ttl)) >= this.config.otpPendingRegistrationsMax) {
          throw new DomainError(
            ErrorCode.RESOURCE_EXHAUSTED,
            Reason.PENDING_REGISTRATIONS_LIMIT,
            'Too many unconfirmed factors; confirm or remove one before adding another.',
            { metadata: { limit: String(this.config.otpPendingRegistrationsMax) } },
          );
        }
        registration.codeSentAt = new Date();
        await this.otp.insert(tx, registration);
      }
      const code = newOtpCode();
      await this.otp.storeCode(tx, registration.id, this.box.mac(OTP_CODE_MAC, codeMacInput(registration.id, code)), this.config.otpCodeTtlSeconds, this.config.otpMaxAttempts);
      await this.enqueueCode(tx, target.scope, registration, code, { email: user.email, username: user.username, locale: user.locale });
    });
    return { registrationID: registration.id, type: registration.type, secret: '', otpauthURL: '' };
  }

  /**
   * Confirms a new factor with its first code; only then does it count (and the
   * `factorAdded` notice goes out, unless `notice` is false: the email-MFA
   * enrollment of a sign-in, whose code went to that same address).
   */
  async verify(target: TargetUserRef, registrationId: string, code: string, notice = true): Promise<OtpRegistrationIdResponse> {
    const db = target.scope.db;
    const row = await this.requireRegistration(db, target.id, registrationId);
    if (row.verifiedAt) throw DomainError.failedPrecondition(Reason.OTP_ALREADY_VERIFIED, 'This factor is already verified.');
    if (row.type === 'totp') {
      const step = await matchTotp(this.box.open(TOTP_SECRET_SEAL, row.secretSealed ?? '').toString(), code);
      if (step === undefined || !(await this.otp.claimTotpStep(db, row.id, step))) throw this.invalidCode();
      await this.markVerified(target, row, null, notice);
      return { registrationID: row.id };
    }
    if (!row.codeMac || !row.codeExpiresAt || row.codeExpiresAt.getTime() <= Date.now() || row.codeAttemptsLeft <= 0) {
      throw DomainError.failedPrecondition(Reason.CODE_EXPIRED, 'No valid code is pending for this factor; request a new one.');
    }
    if (this.box.macEquals(OTP_CODE_MAC, codeMacInput(row.id, code), row.codeMac)) {
      if (await this.markVerified(target, row, row.codeMac, notice)) return { registrationID: row.id };
      // A concurrent request with the same code got there first.
      throw DomainError.failedPrecondition(Reason.OTP_ALREADY_VERIFIED, 'This factor was verified meanwhile.');
    }
    const left = await this.otp.spendCodeAttempt(db, row.id);
    throw this.invalidCode(Math.max(0, left));
  }

  async remove(caller: Principal, target: TargetUserRef, registrationId: string, clientIp: string): Promise<OtpRegistrationIdResponse> {
    await this.stepUp.require(caller, target, {}, clientIp, 'add or remove a sign-in method');
    const db = target.scope.db;
    const settings = await target.scope.settings();
    await db.transaction(async (tx) => {
      const row = await this.requireRegistration(tx, target.id, registrationId);
      // In a sector that requires MFA, a user's last verified second factor stays (the check and the delete share the user-row lock).
      const left = await this.users.lockAndCountSecondFactors(tx, target.id, { otpRegistrationId: row.id });
      if (settings.mfaRequired && row.verifiedAt && left === 0) {
        throw DomainError.failedPrecondition(
          Reason.LAST_FACTOR,
          "This is the user's last second factor and the sector requires MFA; add another factor before removing it.",
        );
      }
      await this.otp.delete(tx, target.id, registrationId);
      await this.audit.record(tx, {
        type: 'mfa.removed',
        sectorId: target.scope.route.sectorId,
        target: { kind: 'user', id: target.id },
        details: { factor: row.type, registrationID: row.id, verified: row.verifiedAt !== null },
      });
    });
    return { registrationID: registrationId };
  }

  /**
   * Marks a registration verified (an enrolled factor from then on) with its audit
   * event and the `factorAdded` notice to the user's email, in one database
   * transaction; false when the code was consumed meanwhile.
   */
  private async markVerified(target: TargetUserRef, row: OtpRegistrationEntity, codeMac: string | null, notice: boolean): Promise<boolean> {
    const user = notice ? await this.users.findById(target.scope.db, target.id) : null;
    return this.messages.inTransaction(target.scope, async (tx) => {
      const marked = await this.otp.markVerified(tx, row.id, codeMac);
      if (marked) {
        await this.audit.record(tx, {
          type: 'mfa.enrolled',
          sectorId: target.scope.route.sectorId,
          target: { kind: 'user', id: target.id },
          details: { factor: row.type, registrationID: row.id },
        });
        if (user?.email) await this.messages.enqueue(tx, target.scope, 'factorAdded', { email: user.email, locale: user.locale }, { username: user.username, factor: FACTOR_NAMES[row.type] });
      }
      return marked;
    });
  }

  /** Queues a code (mail or SMS, with the sector's code template) in the caller's transaction. */
  enqueueCode(tx: TenantDb, scope: SectorScope, registration: OtpRegistrationEntity, code: string, recipient: CodeRecipient): Promise<void> {
    const to = registration.type === 'sms' ? { phone: registration.destination, locale: recipient.locale } : { email: registration.destination, locale: recipient.locale };
    return this.messages.enqueue(tx, scope, 'code', to, {
      code,
      email: recipient.email,
      username: recipient.username,
      expiresInMinutes: Math.ceil(this.config.otpCodeTtlSeconds / 60),
    });
  }

  /** Checks a TOTP code of a verified registration and consumes its time step. */
  async acceptTotp(db: TenantDb, registration: OtpRegistrationEntity, code: string): Promise<boolean> {
    if (registration.type !== 'totp' || !registration.secretSealed) return false;
    const step = await matchTotp(this.box.open(TOTP_SECRET_SEAL, registration.secretSealed).toString(), code);
    return step !== undefined && (await this.otp.claimTotpStep(db, registration.id, step));
  }

  /** RESOURCE_EXHAUSTED / RESEND_COOLDOWN: a code went out moments ago. */
  cooldownError(seconds: number): DomainError {
    return new DomainError(ErrorCode.RESOURCE_EXHAUSTED, Reason.RESEND_COOLDOWN, 'A code was sent moments ago; wait before asking for another.', {
      retryAfterSeconds: seconds,
    });
  }

  invalidCode(attemptsLeft?: number): DomainError {
    return new DomainError(ErrorCode.UNAUTHENTICATED, Reason.INVALID_CODE, 'The code is incorrect.', {
      metadata: attemptsLeft === undefined ? {} : { attemptsLeft: String(attemptsLeft) },
    });
  }

  private newRow(userId: string, type: OtpRegistrationEntity['type'], destination: string): OtpRegistrationEntity {
    return Object.assign(new OtpRegistrationEntity(), {
      id: randomUUID(),
      userId,
      type,
      destination,
      secretSealed: null,
      verifiedAt: null,
      lastTotpStep: '0',
      codeMac: null,
      codeExpiresAt: null,
      codeAttemptsLeft: 0,
      codeSentAt: null,
      anonSends: 0,
      anonWindowStart: null,
      createdAt: new Date(),
    });
  }

  private async requireRegistration(db: TenantDb, userId: string, id: string): Promise<OtpRegistrationEntity> {
    const row = isUuid(id) ? await this.otp.findForUser(db, userId, id) : null;
    if (!row) throw DomainError.notFound(Reason.OTP_REGISTRATION_NOT_FOUND, 'No such OTP registration for this user.');
    return row;
  }
}
