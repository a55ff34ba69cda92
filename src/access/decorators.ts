import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import type { IncomingRequest } from '../common/http/request';
import type { SectorRoute } from '../tenancy/tenant-directory';
import type { Principal } from './principal';
import { AuthRequirement, Role } from './role-matrix';

export const IS_PUBLIC = 'iam:isPublic';
export const AUTH_REQUIREMENT = 'iam:authRequirement';

/** The only way out of the global authentication guard. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** Declares what a handler needs; a handler without @Public or @Authenticated is denied. */
export const Authenticated = (requirement: AuthRequirement = { role: Role.AUTHENTICATED }) =>
  SetMetadata(AUTH_REQUIREMENT, requirement);

/** The user a handler acts on (resolved by the role guard from `:sub`). */
export interface TargetUserRef {
  id: string;
  sectorId: string;
  sector: SectorRoute;
}

type AuthedRequest = IncomingRequest & { user?: Principal; targetSector?: SectorRoute; targetUser?: TargetUserRef };

/** The authenticated caller (set by the guard). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<AuthedRequest>().user;
  if (!principal) throw DomainError.unauthenticated('CREDENTIAL_MISSING', 'A valid bearer credential is required.');
  return principal;
});

/** The target sector the role guard resolved from the route. */
export const TargetSector = createParamDecorator((_: unknown, ctx: ExecutionContext): SectorRoute => {
  const target = ctx.switchToHttp().getRequest<AuthedRequest>().targetSector;
  if (!target) throw new Error('TargetSector used on a handler whose @Authenticated has no sectorFrom');
  return target;
});

/** The target user the role guard resolved from `:sub`. */
export const TargetUser = createParamDecorator((_: unknown, ctx: ExecutionContext): TargetUserRef => {
  const target = ctx.switchToHttp().getRequest<AuthedRequest>().targetUser;
  if (!target) throw new Error("TargetUser used on a handler whose @Authenticated has no sectorFrom: 'userParam'");
  return target;
});

/** The caller's client address (for audit and throttling). */
export const ClientIp = createParamDecorator((_: unknown, ctx: ExecutionContext): string =>
  ctx.switchToHttp().getRequest<IncomingRequest>().ip ?? '',
);
