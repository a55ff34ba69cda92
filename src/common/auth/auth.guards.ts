import { ExecutionContext, Injectable } from '@nestjs/common';
import { CanActivate } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { DomainError } from '../errors/domain-error';
import { Reason } from '../errors/error-codes';
import type { IncomingRequest } from '../http/request';
import { SectorRoute, TenantDirectory } from '../tenancy/tenant-directory';
import { BEARER_STRATEGY } from './bearer.strategy';
import { AUTH_REQUIREMENT, IS_PUBLIC } from './decorators';
import type { Principal } from './principal';
import { allows, AuthRequirement } from './role-matrix';

type GuardedRequest = IncomingRequest & { user?: Principal; targetSector?: SectorRoute };

/** Global guard 1: every handler needs a valid bearer credential unless it is @Public. */
@Injectable()
export class AuthenticationGuard extends AuthGuard(BEARER_STRATEGY) {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    return super.canActivate(context);
  }

  override handleRequest<T>(err: unknown, user: T): T {
    if (err) throw err;
    if (!user) throw DomainError.unauthenticated(Reason.CREDENTIAL_MISSING, 'A valid bearer credential is required.');
    return user;
  }
}

/**
 * Global guard 2: checks the handler's declared role against the role matrix,
 * resolving the target sector first. Deny by default: a handler that declares
 * neither @Public nor @Authenticated is refused.
 */
@Injectable()
export class RoleGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly directory: TenantDirectory,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const requirement = this.reflector.getAllAndOverride<AuthRequirement | undefined>(AUTH_REQUIREMENT, targets);
    if (!requirement) throw DomainError.permissionDenied('This operation is not open to any role.');
    const req = context.switchToHttp().getRequest<GuardedRequest>();
    const principal = req.user;
    if (!principal) throw DomainError.unauthenticated(Reason.CREDENTIAL_MISSING, 'A valid bearer credential is required.');
    let target: SectorRoute | undefined;
    if (requirement.sectorFrom === 'param') {
      target = await this.directory.routeSector(req.params.sectorID ?? '');
      // Another tenant's sector answers exactly like a missing one.
      if (target.tenant.id !== principal.tenant.id) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
      req.targetSector = target;
    }
    if (!allows(requirement.role, principal, target)) throw DomainError.permissionDenied();
    return true;
  }
}
