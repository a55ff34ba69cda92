import { Injectable } from '@nestjs/common';
import { TargetUserRef } from '../settings/request-targets';
import type { Principal } from '../access/principal';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { unixSeconds } from '../common/wire/wire';
import { toBase64Url } from './ceremony';
import { ListWebAuthnCredentialsResponse, WebAuthnCredentialIdResponse, WebAuthnCredentialResponse } from './dto/webauthn.dto';
import { WebAuthnCredentialEntity } from './webauthn-credential.entity';
import { WebAuthnCredentialRepository } from './webauthn-credential.repository';
import { StepUpService } from '../user/step-up.service';
import { UserRepository } from '../user/user.repository';
import { AuditService } from '../audit/audit.service';

/**
 * A user's passkeys: list, rename, delete (the last factor of a user in an
 * MFA-required sector stays; a user removing their own needs a recent sign-in),
 * and an admin clearing the flag of a passkey that may have been cloned.
 */
@Injectable()
export class WebAuthnCredentialsService {
  constructor(
    private readonly credentials: WebAuthnCredentialRepository,
    private readonly users: UserRepository,
    private readonly audit: AuditService,
    private readonly stepUp: StepUpService,
  ) {}

  async list(target: TargetUserRef): Promise<ListWebAuthnCredentialsResponse> {
    const rows = await this.credentials.listForUser(target.scope.db, target.id);
    return { credentials: rows.map(toCredentialResponse) };
  }

  async rename(target: TargetUserRef, id: string, keyName: string): Promise<WebAuthnCredentialResponse> {
    const credentialId = credentialIdParam(id);
    const name = keyName.trim();
    if (!name) throw DomainError.invalidField('keyName', 'must not be blank');
    if (!(await this.credentials.rename(target.scope.db, target.id, credentialId, name))) throw notFound();
    const row = await this.credentials.findForUser(target.scope.db, target.id, credentialId);
    if (!row) throw notFound();
    return toCredentialResponse(row);
  }

  /**
   * Deletes a passkey. In a sector that requires MFA, a user's last factor (no
   * other passkey and no verified one-time-code factor) is FAILED_PRECONDITION /
   * LAST_FACTOR; the check and the delete run in one database transaction under
   * a lock on the user's row, so two deletions cannot each leave the other one.
   * A user removing their own passkey needs a sign-in of the last five minutes
   * (the route has no body: re-authenticate first); REAUTHENTICATION_REQUIRED otherwise.
   */
  async remove(caller: Principal, target: TargetUserRef, id: string, clientIp: string): Promise<WebAuthnCredentialIdResponse> {
    await this.stepUp.require(caller, target, {}, clientIp, 'add or remove a sign-in method');
    const credentialId = credentialIdParam(id);
    const settings = await target.scope.settings();
    await target.scope.db.transaction(async (tx) => {
      const left = await this.users.lockAndCountSecondFactors(tx, target.id, { webauthnCredentialId: credentialId });
      if (!(await this.credentials.findForUser(tx, target.id, credentialId))) throw notFound();
      if (settings.mfaRequired && left === 0) {
        throw DomainError.failedPrecondition(
          Reason.LAST_FACTOR,
          "This passkey is the user's last second factor and the sector requires MFA; add another factor before removing it.",
        );
      }
      await this.credentials.delete(tx, target.id, credentialId);
      await this.audit.record(tx, { type: 'mfa.removed', sectorId: target.scope.route.sectorId, target: { kind: 'user', id: target.id }, details: { factor: 'webauthn', credentialID: credentialId } });
    });
    return { id: credentialId };
  }

  /**
   * Clears the flag of a passkey flagged as possibly cloned, so it signs in again
   * (a signed-in admin over the user's sector decides; the role matrix keeps the
   * user and API tokens out). Clearing an unflagged passkey changes nothing and
   * records nothing.
   */
  async clearFlag(target: TargetUserRef, id: string): Promise<WebAuthnCredentialResponse> {
    const credentialId = credentialIdParam(id);
    const row = await target.scope.db.transaction(async (tx) => {
      const cleared = await this.credentials.clearFlag(tx, target.id, credentialId);
      if (!cleared) throw notFound();
      if (cleared.wasFlaggedAt) {
        await this.audit.record(tx, {
          type: 'mfa.flag_cleared',
          sectorId: target.scope.route.sectorId,
          target: { kind: 'user', id: target.id },
          details: { factor: 'webauthn', credentialID: credentialId },
        });
      }
      return this.credentials.findForUser(tx, target.id, credentialId);
    });
    if (!row) throw notFound();
    return toCredentialResponse(row);
  }
}

function toCredentialResponse(c: WebAuthnCredentialEntity): WebAuthnCredentialResponse {
  return {
    id: c.credentialId,
    keyName: c.keyName,
    createdAt: unixSeconds(c.createdAt),
    lastUsedAt: unixSeconds(c.lastUsedAt),
    transports: [...c.transports],
    backedUp: c.backedUp,
    aaguid: c.aaguid,
    cloneWarning: c.cloneWarning,
    flagged: c.flaggedAt !== null,
    flaggedAt: unixSeconds(c.flaggedAt),
  };
}

function notFound(): DomainError {
  return DomainError.notFound(Reason.WEBAUTHN_CREDENTIAL_NOT_FOUND, 'No such passkey for this user.');
}

/** The `{id}` of a credential route, as the stored base64url form (a malformed one names no passkey). */
function credentialIdParam(id: string): string {
  const normalized = id.length <= 2048 ? toBase64Url(id) : undefined;
  if (!normalized) throw notFound();
  return normalized;
}
