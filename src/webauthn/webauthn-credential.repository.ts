import { Injectable } from '@nestjs/common';
import { translatingUniqueViolations } from '../common/errors/db-errors';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { TenantDb } from '../tenancy/tenant-db';
import { WebAuthnCredentialEntity } from './webauthn-credential.entity';

/** Passkeys of a tenant's users. */
@Injectable()
export class WebAuthnCredentialRepository {
  listForUser(db: TenantDb, userId: string): Promise<WebAuthnCredentialEntity[]> {
    return db.manager.getRepository(WebAuthnCredentialEntity).find({ where: { userId }, order: { createdAt: 'ASC', credentialId: 'ASC' } });
  }

  findForUser(db: TenantDb, userId: string, credentialId: string): Promise<WebAuthnCredentialEntity | null> {
    return db.manager.getRepository(WebAuthnCredentialEntity).findOneBy({ userId, credentialId });
  }

  /** A credential registered in the sector (a credential of another sector is not one the sector knows). */
  findInSector(db: TenantDb, sectorId: string, credentialId: string): Promise<WebAuthnCredentialEntity | null> {
    return db.manager.getRepository(WebAuthnCredentialEntity).findOneBy({ sectorId, credentialId });
  }

  /** Does the user hold a passkey? (What makes the passkey a second factor the user must use.) */
  async hasAny(db: TenantDb, userId: string): Promise<boolean> {
    const rows = await db.rows('SELECT 1 FROM webauthn_credentials WHERE user_id = $1 LIMIT 1', [userId]);
    return rows.length > 0;
  }

  /** Stores a verified credential; a credential ID already registered is ALREADY_EXISTS. */
  async insert(db: TenantDb, row: WebAuthnCredentialEntity): Promise<void> {
    await translatingUniqueViolations(() => db.manager.getRepository(WebAuthnCredentialEntity).insert(row as never), {
      webauthn_credentials_pkey: () => DomainError.alreadyExists(Reason.WEBAUTHN_CREDENTIAL_EXISTS, 'This passkey is already registered.'),
    });
  }

  /** Records a verified assertion: the counter only moves forward, the backup state is the one just reported. */
  async recordUse(db: TenantDb, credentialId: string, counter: number, backedUp: boolean): Promise<void> {
    await db.manager.query(
      'UPDATE webauthn_credentials SET sign_count = greatest(sign_count, $2), backed_up = $3, last_used_at = now() WHERE credential_id = $1',
      [credentialId, counter, backedUp],
    );
  }

  /**
   * Flags a credential as possibly cloned (its counter went backwards): the
   * clone warning, and `flagged_at`, which refuses every later sign-in with it
   * until an admin clears it. Only while the challenge it answered is still
   * pending on its transaction: a replay racing the sign-in that used the
   * challenge sees the counter that sign-in stored, and is a replay, not a
   * clone. False: nothing was flagged.
   */
  async flagClone(db: TenantDb, credentialId: string, transactionId: string, challenge: string): Promise<boolean> {
    const rows = await db.rows(
      `UPDATE webauthn_credentials SET clone_warning = true, flagged_at = coalesce(flagged_at, now())
        WHERE credential_id = $1
          AND EXISTS (SELECT 1 FROM auth_transactions
                       WHERE id = $2 AND status = 'PENDING' AND expires_at > now() AND data->'webauthn'->>'challenge' = $3)
        RETURNING credential_id`,
      [credentialId, transactionId, challenge],
    );
    return rows.length > 0;
  }

  /**
   * Clears the flag of a user's credential (the clone warning stays, as history).
   * Undefined: no such credential; otherwise when it had been flagged (null: it
   * was not).
   */
  async clearFlag(db: TenantDb, userId: string, credentialId: string): Promise<{ wasFlaggedAt: Date | null } | undefined> {
    const rows = await db.rows<{ was: Date | null }>(
      `UPDATE webauthn_credentials c SET flagged_at = NULL
         FROM webauthn_credentials old
        WHERE old.credential_id = c.credential_id AND c.user_id = $1 AND c.credential_id = $2
        RETURNING old.flagged_at AS was`,
      [userId, credentialId],
    );
    return rows.length > 0 ? { wasFlaggedAt: rows[0].was } : undefined;
  }

  async rename(db: TenantDb, userId: string, credentialId: string, keyName: string): Promise<boolean> {
    const rows = await db.rows('UPDATE webauthn_credentials SET key_name = $3 WHERE user_id = $1 AND credential_id = $2 RETURNING credential_id', [
      userId,
      credentialId,
      keyName,
    ]);
    return rows.length > 0;
  }

  async delete(db: TenantDb, userId: string, credentialId: string): Promise<boolean> {
    const rows = await db.rows('DELETE FROM webauthn_credentials WHERE user_id = $1 AND credential_id = $2 RETURNING credential_id', [userId, credentialId]);
    return rows.length > 0;
  }
}
