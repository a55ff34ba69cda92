import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import type { IncomingRequest } from '../common/http/request';
import type { SectorScope } from '../settings/sector-scope';
import type { Principal } from './principal';
import { AuthRequirement, Role } from './role-matrix';

export const IS_PUBLIC = 'iam:isPublic';
export const AUTH_REQUIREMENT = 'iam:authRequirement';

/** The only way out of the global authentication guard. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** Declares what a handler needs; a handler without @Public or @Authenticated is denied. */
export const Authenticated = (requirement: AuthRequirement = { role: Role.AUTHENTICATED }) =>
  SetMetadata(AUTH_REQUIREMENT, requirement);

/** The user a handler acts on (resolved by the role guard from `:sub`), with the scope of their sector. */
export interface TargetUserRef {
  id: string;
  /** The stored admin flag, read by the guard on this request. */
  isAdmin: boolean;
  scope: SectorScope;
}

type AuthedRequest = IncomingRequest & { user?: Principal; targetScope?: SectorScope; targetUser?: TargetUserRef };

/** The authenticated caller (set by the guard). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<AuthedRequest>().user;
  if (!principal) throw DomainError.unauthenticated('CREDENTIAL_MISSING', 'A valid bearer credential is required.');
  return principal;
});

/** The scope of the target sector the role guard resolved from the route (`:sectorID`, or the sector of user `:sub`). */
export const TargetScope = createParamDecorator((_: unknown, ctx: ExecutionContext): SectorScope => {
  const target = ctx.switchToHttp().getRequest<AuthedRequest>().targetScope;
  if (!target) throw new Error('TargetScope used on a handler whose @Authenticated has no sectorFrom');
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
