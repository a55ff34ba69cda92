import { Injectable } from '@nestjs/common';
import { AuthStateCache, CacheHandle } from '../tenancy/auth-state-cache';
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

  /**
   * The cache's entry of the state `of` would answer from the cache, or undefined
   * when it would read the database. Whoever keeps the entry asks `stillCached`
   * before using its state again.
   */
  cached(tenant: TenantEntity, userId: string, sessionId?: string): CacheHandle<UserAuthState> | undefined {
    return this.cache.peekEntry(tenant, keyOf(tenant, userId, sessionId));
  }

  /** Whether an entry `cached` answered is still what it would answer now (no change of the user or session since, not expired). */
  stillCached(entry: CacheHandle<UserAuthState>): boolean {
    return this.cache.stillServes(entry);
  }
}

function keyOf(tenant: TenantEntity, userId: string, sessionId: string | undefined): string {
  return `${tenant.id}:u:${userId}:${sessionId ?? ''}`;
}
