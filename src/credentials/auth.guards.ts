import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SectorScope, SectorScopes } from '../settings/sector-scope';
import { UserAuthStates } from '../user/user-auth-states';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { headerValue, IncomingRequest } from '../common/http/request';
import { noteRequestScope } from '../common/http/request-context';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { isUuid } from '../common/wire/wire';
import { BEARER_STRATEGY, BearerStrategy, bearerCredential } from './bearer.strategy';
import { CredentialService } from './credential.service';
import { AUTH_REQUIREMENT, IS_PUBLIC } from '../access/decorators';
import { TargetUserRef } from '../settings/request-targets';
import type { Principal } from '../access/principal';
import { actorOf } from '../audit/audit-event';
import { AccessTarget, allows, AuthRequirement, ROLES_NEEDING_FLAGS } from '../access/role-matrix';

type GuardedRequest = IncomingRequest & { user?: Principal; targetScope?: SectorScope; targetUser?: TargetUserRef };

type Requirement = { isPublic: boolean; requirement?: AuthRequirement };
/** Each handler's declared requirement, by controller and handler: decorators are fixed once the application is built, so both guards read them once per route. */
const requirements = new WeakMap<object, WeakMap<object, Requirement>>();

function requirementOf(reflector: Reflector, context: ExecutionContext): Requirement {
  const handler = context.getHandler();
  const controller = context.getClass();
  let byHandler = requirements.get(controller);
  if (byHandler === undefined) requirements.set(controller, (byHandler = new WeakMap()));
  let found = byHandler.get(handler);
  if (found === undefined) {
    const targets = [handler, controller];
    found = {
      isPublic: reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
      requirement: reflector.getAllAndOverride<AuthRequirement | undefined>(AUTH_REQUIREMENT, targets),
    };
    byHandler.set(handler, found);
  }
  return found;
}

/**
 * Global guard 1: every handler needs a valid bearer credential unless it is
 * @Public; a handler that accepts a transaction proof takes `?transactionID=`
 * instead when no bearer credential is sent.
 *
 * Anything the caches do not answer goes through passport, with this
 * application's own authenticator (see BearerStrategy).
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialService,
    private readonly strategy: BearerStrategy,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { isPublic, requirement } = requirementOf(this.reflector, context);
    if (isPublic) return true;
    const req = context.switchToHttp().getRequest<GuardedRequest>();
    const header = headerValue(req, 'authorization');
    // The query is read only where a proof may stand in for the credential (Express parses it on each read).
    if (requirement?.transactionProof && !header) {
      const proof = req.query.transactionID;
      if (typeof proof === 'string') {
        req.user = await this.credentials.authenticateTransactionProof(proof);
        return true;
      }
    }
    // A repeated credential is answered from the caches without a promise or
    // passport's per-request machinery; the same CredentialService, so the same
    // checks and errors. Anything else goes through the bearer strategy.
    if (header !== undefined) await this.credentials.ready();
    const cached = header === undefined ? undefined : this.credentials.authenticateCached(bearerCredential(header));
    req.user = cached ?? (await this.throughPassport(req));
    return true;
  }

  private throughPassport(req: GuardedRequest): Promise<Principal> {
    return new Promise((resolve, reject) => {
      const done = (err: unknown, user: Principal | false | undefined) => {
        if (err) reject(err);
        else if (!user) reject(DomainError.unauthenticated(Reason.CREDENTIAL_MISSING, 'A valid bearer credential is required.'));
        else resolve(user);
      };
      this.strategy.passport.authenticate(BEARER_STRATEGY, { session: false }, done)(req, undefined, reject);
    });
  }
}

/**
 * Global guard 2: resolves the handler's target once — the sector scope (tenant,
 * sector, database handle, settings when the role depends on them), and for user
 * routes the user — hands it to the handler, and checks the declared role against
 * the role matrix. Deny by default: a handler that
 * declares neither @Public nor @Authenticated is refused.
 */
@Injectable()
export class RoleGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly scopes: SectorScopes,
    private readonly users: UserAuthStates,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { isPublic, requirement } = requirementOf(this.reflector, context);
    if (isPublic) return true;
    if (!requirement) throw DomainError.permissionDenied('This operation is not open to any role.');
    const req = context.switchToHttp().getRequest<GuardedRequest>();
    const principal = req.user;
    if (!principal) throw DomainError.unauthenticated(Reason.CREDENTIAL_MISSING, 'A valid bearer credential is required.');
    const target: AccessTarget = {};
    let scope: SectorScope | undefined;
    if (requirement.sectorFrom === 'param') {
      const route = await this.directory.routeSector(req.params.sectorID ?? '');
      // Another tenant's sector answers exactly like a missing one.
      if (route.tenant.id !== principal.tenant.id) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
      scope = await this.scopes.of(route);
    } else if (requirement.sectorFrom === 'userParam') {
      const sub = req.params.sub ?? '';
      if (!isUuid(sub)) throw DomainError.invalidField('sub', 'must be a UUID');
      // A transactionID proves self-access to its own user only: for anyone else it proves nothing.
      if (principal.kind === 'transaction' && principal.userId !== sub) {
        throw DomainError.unauthenticated(Reason.TRANSACTION_PROOF_INVALID, 'The transactionID does not prove a sign-in of this user.');
      }
      // Looked up in the caller's own tenant: another tenant's user answers like a missing one.
      const tenant = principal.tenant;
      const user = await this.users.of(tenant, sub);
      if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
      const db = await this.connections.db(tenant);
      scope = this.scopes.withDb({ tenant, sectorId: user.sectorId, isDefault: user.sectorId === tenant.rootSectorId }, db);
      target.userId = user.id;
      target.userIsAdmin = user.isAdmin;
      req.targetUser = { id: user.id, isAdmin: user.isAdmin, scope };
    } else if (requirement.sectorFrom === 'callerTenant') {
      const tenant = principal.tenant;
      scope = await this.scopes.of({ tenant, sectorId: tenant.rootSectorId, isDefault: true });
    }
    noteRequestScope(principal.tenant.id, scope?.route.sectorId ?? principal.sectorId, actorOf(principal));
    if (scope) {
      target.sector = scope.route;
      req.targetScope = scope;
      if (ROLES_NEEDING_FLAGS.has(requirement.role)) {
        const settings = await scope.settings();
        target.flags = {
          allowUserCreationForNonAdmins: settings.allowUserCreationForNonAdmins,
          allowUserReadForNonAdmins: settings.allowUserReadForNonAdmins,
        };
      }
    }
    if (!allows(requirement.role, principal, target)) throw DomainError.permissionDenied();
    return true;
  }
}
