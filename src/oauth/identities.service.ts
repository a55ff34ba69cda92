import { Injectable } from '@nestjs/common';
import type { TargetUserRef } from '../settings/request-targets';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { isUuid, unixSeconds } from '../common/wire/wire';
import { LinkedIdentityIdResponse, LinkedIdentityResponse, ListLinkedIdentitiesResponse } from './dto/oauth.dto';
import { LinkedIdentityEntity } from './linked-identity.entity';
import { LinkedIdentityRepository } from './linked-identity.repository';

/** A user's linked provider identities: listed, and unlinked unless it is the user's last way to sign in. */
@Injectable()
export class IdentitiesService {
  private readonly identities = new LinkedIdentityRepository();

  async list(target: TargetUserRef): Promise<ListLinkedIdentitiesResponse> {
    const rows = await this.identities.listForUser(target.scope.db, target.id);
    return { identities: rows.map(identityView) };
  }

  /**
   * Unlinks an identity. The user's row is locked (FOR UPDATE) for the check, so
   * two concurrent unlinks cannot both remove the last way in: a password, a
   * passkey or another linked identity must remain.
   */
  async remove(target: TargetUserRef, id: string): Promise<LinkedIdentityIdResponse> {
    const notFound = () => DomainError.notFound(Reason.IDENTITY_NOT_FOUND, 'No such linked identity of this user.');
    if (!isUuid(id)) throw notFound();
    await target.scope.db.transaction(async (tx) => {
      const [user] = await tx.rows<{ has_password: boolean }>('SELECT password_hash IS NOT NULL AS has_password FROM users WHERE id = $1 FOR UPDATE', [target.id]);
      if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
      const [row] = await tx.rows<{ mine: number; others: number; passkeys: number }>(
        `SELECT count(*) FILTER (WHERE id = $2)::int AS mine, count(*) FILTER (WHERE id <> $2)::int AS others,
                (SELECT count(*)::int FROM webauthn_credentials WHERE user_id = $1) AS passkeys
           FROM linked_identities WHERE user_id = $1`,
        [target.id, id],
      );
      if (!row || row.mine === 0) throw notFound();
      if (!user.has_password && row.others === 0 && row.passkeys === 0) {
        throw DomainError.failedPrecondition(Reason.LAST_SIGN_IN_METHOD, 'This is the last way this user can sign in; set a password or add a passkey first.');
      }
      await this.identities.delete(tx, target.id, id);
    });
    return { id };
  }
}

/** A linked identity as the API shows it. */
export function identityView(r: LinkedIdentityEntity): LinkedIdentityResponse {
  return {
    id: r.id,
    provider: r.provider,
    issuer: r.issuer,
    subject: r.subject,
    email: r.email,
    createdAt: unixSeconds(r.createdAt),
    lastUsedAt: unixSeconds(r.lastUsedAt),
  };
}
