import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { IncomingRequest } from '../common/http/request';
import type { SectorScope } from './sector-scope';

/**
 * What the role guard (src/credentials) resolved for a handler from its route and
 * hands it through these parameter decorators: the target sector's scope and, for
 * routes on `:sub`, the target user.
 */

/** The user a handler acts on (resolved by the role guard from `:sub`), with the scope of their sector. */
export interface TargetUserRef {
  id: string;
  /** The stored admin flag, read by the guard on this request. */
  isAdmin: boolean;
  scope: SectorScope;
}

type TargetedRequest = IncomingRequest & { targetScope?: SectorScope; targetUser?: TargetUserRef };

/** The scope of the target sector the role guard resolved from the route (`:sectorID`, or the sector of user `:sub`). */
export const TargetScope = createParamDecorator((_: unknown, ctx: ExecutionContext): SectorScope => {
  const target = ctx.switchToHttp().getRequest<TargetedRequest>().targetScope;
  if (!target) throw new Error('TargetScope used on a handler whose @Authenticated has no sectorFrom');
  return target;
});

/** The target user the role guard resolved from `:sub`. */
export const TargetUser = createParamDecorator((_: unknown, ctx: ExecutionContext): TargetUserRef => {
  const target = ctx.switchToHttp().getRequest<TargetedRequest>().targetUser;
  if (!target) throw new Error("TargetUser used on a handler whose @Authenticated has no sectorFrom: 'userParam'");
  return target;
});
