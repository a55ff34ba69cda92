import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { SectorScope } from '../settings/sector-scope';
import { TargetUserRef } from '../settings/request-targets';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantEntity } from '../tenancy/tenant.entity';
import { UserRepository } from '../user/user.repository';
import { DeleteRoleResponse, ListRolesResponse, MAX_ROLES_PER_SECTOR, PutRoleDto, ROLE_NAME, RoleResponse, UserRolesResponse } from './dto/role.dto';
import { toRoleResponse } from './role.mapper';
import { RoleRepository } from './role.repository';

/** Past this many holders, a role change drops everything this instance cached of the tenant instead of naming each holder. */
const FORGET_EACH_MAX = 500;

/**
 * A sector's roles (named sets of the permission strings its apps check) and which
 * users hold them. What a user holds reaches their next access token and, at once,
 * introspection on every instance: the tables announce every change that alters a
 * holder's grants (migration Roles), and this instance drops its own cached state
 * of the holders on commit.
 */
@Injectable()
export class RoleService {
  constructor(
    private readonly roles: RoleRepository,
    private readonly users: UserRepository,
    private readonly audit: AuditService,
    private readonly cache: AuthStateCache,
  ) {}

  async list(scope: SectorScope): Promise<ListRolesResponse> {
    return { roles: (await this.roles.list(scope.db, scope.route.sectorId)).map(toRoleResponse) };
  }

  /** Creates the role `name` or replaces its description and permissions (`role.changed`). */
  async put(scope: SectorScope, name: string, dto: PutRoleDto): Promise<RoleResponse> {
    checkName(name);
    const sectorId = scope.route.sectorId;
    const description = dto.description ?? '';
    const permissions = [...new Set(dto.permissions ?? [])];
    const { row, holders } = await scope.db.transaction(async (tx) => {
      await this.roles.lockSector(tx, sectorId);
      const before = await this.roles.find(tx, sectorId, name);
      if (!before && (await this.roles.count(tx, sectorId)) >= MAX_ROLES_PER_SECTOR) {
        throw new DomainError(ErrorCode.RESOURCE_EXHAUSTED, Reason.ROLE_LIMIT_REACHED, `A sector holds at most ${MAX_ROLES_PER_SECTOR} roles.`, {
          metadata: { limit: String(MAX_ROLES_PER_SECTOR) },
        });
      }
      const saved = await this.roles.upsert(tx, sectorId, name, description, permissions);
      const changed = before !== null && !sameList(before.permissions, permissions);
      await this.audit.record(tx, {
        type: 'role.changed',
        sectorId,
        target: { kind: 'role', id: name },
        details: { change: before ? 'updated' : 'created', permissions, ...(before ? { previousPermissions: before.permissions } : {}) },
      });
      return { row: saved, holders: changed ? await this.roles.holders(tx, saved.id, FORGET_EACH_MAX + 1) : [] };
    });
    this.forgetHolders(scope.route.tenant, holders);
    return toRoleResponse(row);
  }

  /** Deletes the role; every user who held it loses it (`role.changed`). */
  async delete(scope: SectorScope, name: string): Promise<DeleteRoleResponse> {
    const sectorId = scope.route.sectorId;
    const holders = await scope.db.transaction(async (tx) => {
      await this.roles.lockSector(tx, sectorId);
      const role = ROLE_NAME.test(name) ? await this.roles.find(tx, sectorId, name) : null;
      if (!role) throw DomainError.notFound(Reason.ROLE_NOT_FOUND, 'No such role in this sector.');
      const held = await this.roles.holders(tx, role.id, FORGET_EACH_MAX + 1);
      await this.roles.delete(tx, sectorId, name);
      await this.audit.record(tx, { type: 'role.changed', sectorId, target: { kind: 'role', id: name }, details: { change: 'deleted', permissions: role.permissions } });
      return held;
    });
    this.forgetHolders(scope.route.tenant, holders);
    return { name };
  }

  /** The user's roles and their permissions as stored now. */
  userRoles(target: TargetUserRef): Promise<UserRolesResponse> {
    return this.users.grantsOf(target.scope.db, target.id);
  }

  /**
   * Makes the user hold exactly the named roles of their sector, in one
   * transaction (`user.roles_changed` when anything changed). An unknown name is
   * INVALID_ARGUMENT with a violation on its index.
   */
  async setUserRoles(target: TargetUserRef, names: string[]): Promise<UserRolesResponse> {
    const wanted = [...new Set(names)];
    const sectorId = target.scope.route.sectorId;
    const grants = await target.scope.db.transaction(async (tx) => {
      const user = await this.users.lock(tx, target.id);
      if (!user || user.sectorId !== sectorId) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
      const found = await this.roles.resolve(tx, sectorId, wanted);
      const ids = new Map(found.map((r) => [r.name, r.id]));
      const unknown = names.flatMap((n, i) => (ids.has(n) ? [] : [{ field: `roles[${i}]`, description: `no role named "${n}" in this sector` }]));
      if (unknown.length > 0) throw DomainError.invalidArgument(`${unknown[0].field}: ${unknown[0].description}`, unknown);
      const { added, removed } = await this.roles.setHoldings(tx, target.id, [...ids.values()]);
      if (added.length > 0 || removed.length > 0) {
        await this.audit.record(tx, { type: 'user.roles_changed', sectorId, target: { kind: 'user', id: target.id }, details: { added, removed } });
      }
      return this.users.grantsOf(tx, target.id);
    });
    this.cache.forget(target.scope.route.tenant, `u:${target.id}`);
    return grants;
  }

  private forgetHolders(tenant: TenantEntity, holders: string[]): void {
    if (holders.length > FORGET_EACH_MAX) this.cache.flush(tenant);
    else for (const id of holders) this.cache.forget(tenant, `u:${id}`);
  }
}

function checkName(name: string): void {
  if (!ROLE_NAME.test(name)) throw DomainError.invalidField('name', 'must match ^[a-z][a-z0-9_.:-]{0,62}$ (lower case, starting with a letter, at most 63 characters)');
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
