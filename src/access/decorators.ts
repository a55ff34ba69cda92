import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import type { IncomingRequest } from '../common/http/request';
import type { Principal } from './principal';
import { AuthRequirement, Role } from './role-matrix';

export const IS_PUBLIC = 'iam:isPublic';
export const AUTH_REQUIREMENT = 'iam:authRequirement';

/** The only way out of the global authentication guard. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** Declares what a handler needs; a handler without @Public or @Authenticated is denied. */
export const Authenticated = (requirement: AuthRequirement = { role: Role.AUTHENTICATED }) =>
  SetMetadata(AUTH_REQUIREMENT, requirement);

type AuthedRequest = IncomingRequest & { user?: Principal };

/** The authenticated caller (set by the guard). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<AuthedRequest>().user;
  if (!principal) throw DomainError.unauthenticated('CREDENTIAL_MISSING', 'A valid bearer credential is required.');
  return principal;
});

/** The caller's client address (for audit and throttling). */
export const ClientIp = createParamDecorator((_: unknown, ctx: ExecutionContext): string =>
  ctx.switchToHttp().getRequest<IncomingRequest>().ip ?? '',
);
