import { Injectable } from '@nestjs/common';
import { hashSecretToken } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { SectorScopes } from '../settings/sector-scope';
import { tenantOfRoutedId } from '../tenancy/routed-id';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { PasswordHasher } from '../user/password-hasher';
import { passwordViolation } from '../user/password-policy';
import { UserRepository } from '../user/user.repository';
import { AcceptInviteDto, AuthResultResponse } from './engine/auth.dto';
import { SignInEngine } from './engine/sign-in-engine';
import { PasswordStrategy } from './password/password.strategy';

/**
 * Accepting an invitation: sets the password, marks the email verified (the link
 * proves it) and signs the user in through the sign-in engine, so an MFA-required
 * sector still asks for its second factor. The link works once: the acceptance is
 * one conditional UPDATE.
 */
@Injectable()
export class InvitationService {
  constructor(
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly scopes: SectorScopes,
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly engine: SignInEngine,
  ) {}

  async accept(dto: AcceptInviteDto, clientIp: string): Promise<AuthResultResponse> {
    const notFound = () => DomainError.notFound(Reason.INVITE_NOT_FOUND, 'The invitation link is invalid or was already used.');
    const tenantId = tenantOfRoutedId(dto.token);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) throw notFound();
    const db = await this.connections.db(tenant);
    const tokenHash = hashSecretToken(dto.token);
    const invited = await this.users.findByInviteHash(db, tokenHash);
    if (!invited || invited.inviteAcceptedAt) throw notFound();
    if (!invited.inviteExpiresAt || invited.inviteExpiresAt.getTime() <= Date.now()) {
      throw DomainError.failedPrecondition(Reason.INVITE_EXPIRED, 'The invitation has expired; ask an admin to send a new one.');
    }
    const violation = passwordViolation('password', dto.password, invited.email);
    if (violation) throw DomainError.invalidArgument(`Invalid request: password: ${violation.description}`, [violation]);
    const userId = await this.users.acceptInvite(db, tokenHash, await this.hasher.hash(dto.password));
    if (!userId) throw notFound();
    const scope = await this.scopes.byId(invited.sectorId);
    const user = await this.users.findById(scope.db, userId);
    if (!user) throw notFound();
    return this.engine.recordFactor(scope, user, undefined, PasswordStrategy.ID, clientIp);
  }
}
