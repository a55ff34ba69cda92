import { Injectable } from '@nestjs/common';
import { translatingUniqueViolations } from '../common/errors/db-errors';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import type { SharedReads } from '../auth/engine/factor-strategy';
import { TenantDb } from '../tenancy/tenant-db';
import { OtpRegistrationEntity, OtpType } from './otp-registration.entity';

@Injectable()
export class OtpRepository {
  listForUser(db: TenantDb, userId: string): Promise<OtpRegistrationEntity[]> {
    return db.manager.getRepository(OtpRegistrationEntity).find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findForUser(db: TenantDb, userId: string, id: string): Promise<OtpRegistrationEntity | null> {
    return db.manager.getRepository(OtpRegistrationEntity).findOneBy({ id, userId });
  }

  findByDestination(db: TenantDb, userId: string, type: string, destination: string): Promise<OtpRegistrationEntity | null> {
    return db.manager
      .getRepository(OtpRegistrationEntity)
      .createQueryBuilder('r')
      .where('r.user_id = :userId AND r.type = :type AND lower(r.destination) = lower(:destination)', { userId, type, destination })
      .getOne();
  }

  /** The types of the user's verified registrations. */
  async verifiedTypes(db: TenantDb, userId: string): Promise<Set<OtpType>> {
    const rows = await db.rows<{ type: OtpType }>('SELECT DISTINCT type FROM otp_registrations WHERE user_id = $1 AND verified_at IS NOT NULL', [userId]);
    return new Set(rows.map((r) => r.type));
  }

  /** `verifiedTypes`, read once for all the strategies one enrolment check asks (see SharedReads). */
  verifiedTypesOnce(db: TenantDb, userId: string, shared: SharedReads): Promise<Set<OtpType>> {
    return shared.once(`otp-verified-types:${userId}`, () => this.verifiedTypes(db, userId));
  }

  /** Inserts a registration; a destination the user already registered is ALREADY_EXISTS. */
  async insert(db: TenantDb, row: OtpRegistrationEntity): Promise<void> {
    await translatingUniqueViolations(() => db.manager.getRepository(OtpRegistrationEntity).insert(row as never), {
      otp_registrations_destination_key: () => DomainError.alreadyExists(Reason.OTP_REGISTRATION_EXISTS, 'This destination is already registered.'),
    });
  }

  async delete(db: TenantDb, userId: string, id: string): Promise<boolean> {
    const result = await db.manager.getRepository(OtpRegistrationEntity).delete({ id, userId });
    return (result.affected ?? 0) > 0;
  }

  /** Stores a newly sent enrollment code (its MAC), resetting its attempts. */
  async storeCode(db: TenantDb, id: string, codeMac: string, ttlSeconds: number, attempts: number): Promise<void> {
    await db.manager.query(
      `UPDATE otp_registrations SET code_mac = $2, code_expires_at = now() + make_interval(secs => $3), code_attempts_left = $4, code_sent_at = now()
       WHERE id = $1`,
      [id, codeMac, ttlSeconds, attempts],
    );
  }

  /** Marks a registration verified and consumes its code, once (conditional UPDATE). */
  async markVerified(db: TenantDb, id: string, codeMac: string | null): Promise<boolean> {
    const rows = await db.rows(
      `UPDATE otp_registrations SET verified_at = now(), code_mac = NULL, code_expires_at = NULL, code_attempts_left = 0, code_sent_at = NULL
       WHERE id = $1 AND verified_at IS NULL AND ($2::text IS NULL OR (code_mac = $2 AND code_expires_at > now() AND code_attempts_left > 0))
       RETURNING id`,
      [id, codeMac],
    );
    return rows.length > 0;
  }

  /** Uses up one enrollment attempt; returns the attempts left (-1 when there was none to use). */
  async spendCodeAttempt(db: TenantDb, id: string): Promise<number> {
    const [row] = await db.rows<{ code_attempts_left: number }>(
      `UPDATE otp_registrations SET code_attempts_left = code_attempts_left - 1,
         code_mac = CASE WHEN code_attempts_left <= 1 THEN NULL ELSE code_mac END
       WHERE id = $1 AND code_attempts_left > 0 RETURNING code_attempts_left`,
      [id],
    );
    return row ? row.code_attempts_left : -1;
  }

  /**
   * Claims the right to send a new enrollment code to an unverified registration
   * now: one conditional UPDATE, so concurrent or repeated requests send at most
   * one code per cooldown. Returns the seconds to wait when refused, else 0.
   */
  async claimSend(db: TenantDb, id: string, cooldownSeconds: number): Promise<number> {
    const rows = await db.rows(
      `UPDATE otp_registrations SET code_sent_at = now()
       WHERE id = $1 AND (code_sent_at IS NULL OR code_sent_at <= now() - make_interval(secs => $2)) RETURNING id`,
      [id, cooldownSeconds],
    );
    if (rows.length > 0) return 0;
    const [row] = await db.manager.query(
      `SELECT GREATEST(0, EXTRACT(EPOCH FROM (code_sent_at + make_interval(secs => $2) - now())))::float AS wait FROM otp_registrations WHERE id = $1`,
      [id, cooldownSeconds],
    );
    return Math.max(1, Number(row?.wait ?? cooldownSeconds));
  }

  /** Accepts a TOTP step once: only when it is later than the last step accepted (replay protection). */
  async claimTotpStep(db: TenantDb, id: string, step: number): Promise<boolean> {
    const rows = await db.rows('UPDATE otp_registrations SET last_totp_step = $2 WHERE id = $1 AND last_totp_step < $2 RETURNING id', [id, step]);
    return rows.length > 0;
  }

  /**
   * Claims one code for a sign-in that has no factor yet: at most `perHour`
   * unanswered such codes per registration in a rolling hour window, counted in
   * one conditional UPDATE. False: the cap is reached, send nothing.
   */
  async claimAnonymousSend(db: TenantDb, id: string, perHour: number): Promise<boolean> {
    const fresh = `anon_window_start IS NULL OR anon_window_start <= now() - interval '1 hour'`;
    const rows = await db.rows(
      `UPDATE otp_registrations SET
         anon_sends = CASE WHEN ${fresh} THEN 1 ELSE anon_sends + 1 END,
         anon_window_start = CASE WHEN ${fresh} THEN now() ELSE anon_window_start END
       WHERE id = $1 AND $2::int > 0 AND (${fresh} OR anon_sends < $2::int)
       RETURNING id`,
      [id, perHour],
    );
    return rows.length > 0;
  }

  /** Gives an answered code back to the registration's hourly cap. */
  async refundAnonymousSend(db: TenantDb, id: string): Promise<void> {
    await db.manager.query('UPDATE otp_registrations SET anon_sends = greatest(anon_sends - 1, 0) WHERE id = $1', [id]);
  }

  /**
   * Unverified email/SMS registrations of a user that still count (younger than
   * `ttlSeconds`), under a per-user lock held to the end of the caller's
   * transaction, so concurrent registrations cannot pass the cap together.
   */
  async lockPendingCount(db: TenantDb, userId: string, ttlSeconds: number): Promise<number> {
    await db.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('otp-registrations:' || $1, 0))`, [userId]);
    const [row] = await db.rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM otp_registrations
        WHERE user_id = $1 AND verified_at IS NULL AND type <> 'totp' AND created_at > now() - make_interval(secs => $2)`,
      [userId, ttlSeconds],
    );
    return row?.n ?? 0;
  }

  /** Deletes unverified registrations older than `ttlSeconds` (of one user, or of the whole tenant). */
  async purgeStalePending(db: TenantDb, ttlSeconds: number, userId?: string): Promise<number> {
    const rows = await db.rows(
      `DELETE FROM otp_registrations
        WHERE verified_at IS NULL AND created_at <= now() - make_interval(secs => $1) AND ($2::uuid IS NULL OR user_id = $2)
        RETURNING id`,
      [ttlSeconds, userId ?? null],
    );
    return rows.length;
  }
}
