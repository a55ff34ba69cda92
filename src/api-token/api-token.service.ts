import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hashSecretToken } from '../common/crypto/secret-box';
import { ApiTokenPrincipal, Principal } from '../access/principal';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { newRoutedId, tenantOfRoutedId } from '../tenancy/routed-id';
import { isUuid } from '../common/wire/wire';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { SectorScope } from '../settings/sector-scope';
import { CreateApiTokenResponse, ListApiTokensResponse, RevokeApiTokenResponse } from './dto/api-token.dto';
import { toApiTokenResponse } from './api-token.mapper';
import { ApiTokenAuthState, ApiTokenRepository } from './api-token.repository';
import { TenantEntity } from '../tenancy/tenant.entity';
import { ApiTokenEntity } from './api-token.entity';
import { AuditService } from '../audit/audit.service';

/** API tokens look like `iam_<64 base64url chars>`: 256 random bits, then the tenant (for routing). */
const API_TOKEN_PREFIX = 'iam_';
const TOUCH_INTERVAL_MS = 60_000;
const TOUCH_MEMORY_MAX = 100_000;

@Injectable()
export class ApiTokenService {
  /** When each token's last_used_at was last written by this instance. */
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly connections: TenantConnections,
    private readonly directory: TenantDirectory,
    private readonly tokens: ApiTokenRepository,
    private readonly audit: AuditService,
    private readonly cache: AuthStateCache,
  ) {}

  isApiToken(credential: string): boolean {
    return credential.startsWith(API_TOKEN_PREFIX);
  }

  async create(scope: SectorScope, caller: Principal, name: string): Promise<CreateApiTokenResponse> {
    const token = API_TOKEN_PREFIX + newRoutedId(scope.route.tenant.id);
    const row = Object.assign(new ApiTokenEntity(), {
      id: randomUUID(),
      sectorId: scope.route.sectorId,
      name,
      prefix: token.slice(0, 8),
      tokenHash: hashSecretToken(token),
      createdBy: caller.kind === 'user' ? caller.userId : null,
      createdAt: new Date(),
      lastUsedAt: null,
    });
    await scope.db.transaction(async (tx) => {
      await this.tokens.insert(tx, row);
      // The token's id, name and prefix only: the token itself is never written anywhere.
      await this.audit.record(tx, { type: 'api_token.created', sectorId: row.sectorId, target: { kind: 'apiToken', id: row.id }, details: { name: row.name, prefix: row.prefix } });
    });
    return { token, apiToken: toApiTokenResponse(row) };
  }

  async list(scope: SectorScope): Promise<ListApiTokensResponse> {
    return { apiTokens: (await this.tokens.list(scope.db, scope.route.sectorId)).map(toApiTokenResponse) };
  }

  async revoke(scope: SectorScope, id: string): Promise<RevokeApiTokenResponse> {
    const sectorId = scope.route.sectorId;
    const deleted =
      isUuid(id) &&
      (await scope.db.transaction(async (tx) => {
        if (!(await this.tokens.delete(tx, sectorId, id))) return false;
        await this.audit.record(tx, { type: 'api_token.revoked', sectorId, target: { kind: 'apiToken', id } });
        return true;
      }));
    if (!deleted) throw DomainError.notFound(Reason.API_TOKEN_NOT_FOUND, 'No such API token in this sector.');
    this.cache.forget(scope.route.tenant, `t:${id}`);
    this.touched.delete(id);
    return { id };
  }

  /**
   * The principal of an API token: one indexed read by hash, or none when the
   * authorization-state cache holds it (a revocation reaches every instance's cache
   * on commit, so a revoked token stops at once). `last_used_at` is written at most
   * once a minute per token.
   */
  async authenticate(credential: string): Promise<ApiTokenPrincipal> {
    const invalid = () => DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token is invalid.');
    const tenantId = tenantOfRoutedId(credential.slice(API_TOKEN_PREFIX.length));
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) throw invalid();
    const hash = hashSecretToken(credential);
    const found = await this.cache.read(
      tenant,
      cacheKey(tenant, hash),
      async () => this.tokens.findByHash(await this.connections.db(tenant), hash),
      (token) => `t:${token.id}`,
    );
    if (!found) throw invalid();
    return this.principal(tenant, found);
  }

  /** `authenticate` without a promise when the token's tenant and state are cached; undefined otherwise. */
  authenticateCached(credential: string): ApiTokenPrincipal | undefined {
    const tenantId = tenantOfRoutedId(credential.slice(API_TOKEN_PREFIX.length));
    const tenant = tenantId ? this.directory.cachedTenant(tenantId) : undefined;
    const found = tenant && this.cache.peek<ApiTokenAuthState>(tenant, cacheKey(tenant, hashSecretToken(credential)));
    return found ? this.principal(tenant, found) : undefined;
  }

  private principal(tenant: TenantEntity, found: ApiTokenAuthState): ApiTokenPrincipal {
    const now = Date.now();
    if (now - (this.touched.get(found.id) ?? 0) > TOUCH_INTERVAL_MS) {
      if (this.touched.size >= TOUCH_MEMORY_MAX) this.touched.clear();
      this.touched.set(found.id, now);
      void this.connections
        .db(tenant)
        .then((db) => this.tokens.touch(db, found.id))
        .catch(() => this.touched.delete(found.id));
    }
    return { kind: 'apiToken', tenant, sectorId: found.sectorId, tokenId: found.id };
  }
}

function cacheKey(tenant: TenantEntity, hash: string): string {
  return `${tenant.id}:k:${hash}`;
}
