import { Injectable } from '@nestjs/common';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantEntity } from '../tenancy/tenant.entity';
import { UserAuthState, UserRepository } from './user.repository';

/**
 * A user's authorization state as stored now (and the state of one of its
 * sessions), through the authorization-state cache: a hit costs no query, and any
 * change to the user or the session reaches every instance's cache on commit.
 */
@Injectable()
export class UserAuthStates {
  constructor(
    private readonly cache: AuthStateCache,
    private readonly connections: TenantConnections,
    private readonly users: UserRepository,
  ) {}

  of(tenant: TenantEntity, userId: string, sessionId?: string): Promise<UserAuthState | null> {
    return this.cache.read(
      tenant,
      keyOf(tenant, userId, sessionId),
      async () => this.users.findAuthState(await this.connections.db(tenant), userId, sessionId),
      (state) => `u:${state.id}`,
    );
  }

  /** The state `of` would answer from the cache, or undefined when it would read the database. */
  cached(tenant: TenantEntity, userId: string, sessionId?: string): UserAuthState | undefined {
    return this.cache.peek(tenant, keyOf(tenant, userId, sessionId));
  }
}

function keyOf(tenant: TenantEntity, userId: string, sessionId: string | undefined): string {
  return `${tenant.id}:u:${userId}:${sessionId ?? ''}`;
}
