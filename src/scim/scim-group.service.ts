import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { isUuid } from '../common/wire/wire';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MAX_ROLES_PER_SECTOR } from '../role/dto/role.dto';
import { GroupRow, RoleRepository } from '../role/role.repository';
import { SectorScope } from '../settings/sector-scope';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantDb } from '../tenancy/tenant-db';
import { UserRepository } from '../user/user.repository';
import { ScimError } from './scim-error';
import { parseScimFilter } from './scim-filter';
import { applyPatch } from './scim-patch';
import { checkVersion, listWindow, project, ScimListQuery, versionOf } from './scim-resources';
import { GROUP_SCHEMA, groupFilterSql } from './scim-user-query';
import { LIST_SCHEMA, ScimWritten } from './scim-user.service';

/** Members a group may list in one request body. */
const MAX_MEMBERS = 10_000;
/** Past this many members changed at once, this instance drops everything it cached of the tenant rather than each member. */
const FORGET_EACH_MAX = 500;

const notFound = () => new ScimError(404, 'No such group in this sector.');

interface GroupInput {
  displayName: string;
  externalId: string | null;
  members: string[];
}

/**
 * SCIM Groups of a sector are its roles: `displayName` is the name the directory
 * gave the group, the role's name (what tokens and introspection carry) is derived
 * from it (`Sales Team` → `sales-team`, made unique in the sector), and `members`
 * are the users holding the role. A group created here has no permissions until an
 * admin adds some. Membership changes reach introspection at once (the role
 * tables announce them) and this instance forgets its members' cached state.
 */
@Injectable()
export class ScimGroupService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly roles: RoleRepository,
    private readonly users: UserRepository,
    private readonly audit: AuditService,
    private readonly cache: AuthStateCache,
  ) {}

  private base(scope: SectorScope): string {
    return `${this.config.publicUrl}/scim/v2/${scope.route.sectorId}`;
  }

  async get(scope: SectorScope, id: string, query: ScimListQuery = {}): Promise<ScimWritten> {
    const written = await this.render(scope, await this.find(scope.db, scope, id), !excludesMembers(query));
    return { ...written, resource: project(written.resource, query) };
  }

  async list(scope: SectorScope, query: ScimListQuery): Promise<Record<string, unknown>> {
    const { startIndex, count } = listWindow(query);
    const params: unknown[] = [scope.route.sectorId];
    const where = query.filter ? `r.sector_id = $1 AND ${groupFilterSql(parseScimFilter(query.filter), params)}` : 'r.sector_id = $1';
    const [{ n }] = await scope.db.read<{ n: number }>(`SELECT count(*)::int AS n FROM roles r WHERE ${where}`, params);
    let resources: Record<string, unknown>[] = [];
    if (count > 0 && startIndex <= n) {
      const page = await scope.db.read<{ id: string }>(`SELECT r.id FROM roles r WHERE ${where} ORDER BY r.created_at, r.id OFFSET ${startIndex - 1} LIMIT ${count}`, params);
      const groups = await this.roles.groupsById(scope.db, page.map((r) => r.id));
      const withMembers = !excludesMembers(query);
      const members = withMembers ? await this.roles.membersOf(scope.db, groups.map((g) => g.id)) : new Map();
      resources = groups.map((g) => project(this.toScim(scope, g, withMembers ? (members.get(g.id) ?? []) : undefined), query));
    }
    return { schemas: [LIST_SCHEMA], totalResults: n, itemsPerPage: resources.length, startIndex, Resources: resources };
  }

  async create(scope: SectorScope, body: unknown): Promise<ScimWritten> {
    const input = groupInput(body);
    const sectorId = scope.route.sectorId;
    const { id, changed } = await scope.db.transaction(async (tx) => {
      await this.roles.lockSector(tx, sectorId);
      if ((await this.roles.count(tx, sectorId)) >= MAX_ROLES_PER_SECTOR) throw new ScimError(400, `A sector holds at most ${MAX_ROLES_PER_SECTOR} roles.`, 'tooMany');
      const name = await this.uniqueName(tx, sectorId, input.displayName, null);
      const id = await this.roles.insertGroup(tx, sectorId, name, input.displayName, input.externalId);
      await this.audit.record(tx, { type: 'role.changed', sectorId, target: { kind: 'role', id: name }, details: { change: 'created', permissions: [], scim: true } });
      return { id, changed: await this.setMembers(tx, sectorId, id, name, input.members) };
    });
    this.forget(scope, changed);
    return this.render(scope, await this.find(scope.db, scope, id), true);
  }

  async replace(scope: SectorScope, id: string, body: unknown, ifMatch?: string): Promise<ScimWritten> {
    return this.write(scope, id, ifMatch, () => body);
  }

  async patch(scope: SectorScope, id: string, body: unknown, ifMatch?: string): Promise<ScimWritten> {
    return this.write(scope, id, ifMatch, (current) => applyPatch(current, body, GROUP_SCHEMA));
  }

  /** DELETE: the role goes, and every member loses it at once. */
  async delete(scope: SectorScope, id: string, ifMatch?: string): Promise<void> {
    const sectorId = scope.route.sectorId;
    const changed = await scope.db.transaction(async (tx) => {
      await this.roles.lockSector(tx, sectorId);
      const group = await this.find(tx, scope, id);
      checkVersion(group, ifMatch);
      const members = ((await this.roles.membersOf(tx, [group.id])).get(group.id) ?? []).map((m) => m.id);
      await this.roles.delete(tx, sectorId, group.name);
      await this.audit.record(tx, { type: 'role.changed', sectorId, target: { kind: 'role', id: group.name }, details: { change: 'deleted', scim: true } });
      return members;
    });
    this.forget(scope, changed);
  }

  private async write(scope: SectorScope, id: string, ifMatch: string | undefined, next: (current: Record<string, unknown>) => unknown): Promise<ScimWritten> {
    const sectorId = scope.route.sectorId;
    const changed = await scope.db.transaction(async (tx) => {
      await this.roles.lockSector(tx, sectorId);
      const before = await this.find(tx, scope, id);
      checkVersion(before, ifMatch);
      const members = (await this.roles.membersOf(tx, [before.id])).get(before.id) ?? [];
      const current = this.toScim(scope, before, members);
      delete current.meta;
      const input = groupInput(next(current));
      const displayName = input.displayName;
      const renamed = displayName !== (before.displayName || before.name);
      const name = renamed ? await this.uniqueName(tx, sectorId, displayName, before.id) : before.name;
      await this.roles.updateGroup(tx, before.id, name, displayName, input.externalId);
      if (renamed) {
        await this.audit.record(tx, { type: 'role.changed', sectorId, target: { kind: 'role', id: name }, details: { change: 'updated', previousName: before.name, scim: true } });
      }
      const touched = await this.setMembers(tx, sectorId, before.id, name, input.members);
      // A renamed role changes what every member's introspection answers.
      return renamed ? [...new Set([...touched, ...members.map((m) => m.id)])] : touched;
    });
    this.forget(scope, changed);
    return this.render(scope, await this.find(scope.db, scope, id), true);
  }

  /** Makes exactly `userIds` the group's members; the users whose holdings changed. Members must be users of the sector who are not admins. */
  private async setMembers(tx: TenantDb, sectorId: string, roleId: string, roleName: string, userIds: string[]): Promise<string[]> {
    const wanted = [...new Set(userIds)];
    const valid = wanted.filter(isUuid);
    const found = await this.users.lockMembers(tx, sectorId, valid);
    const known = new Set(found.map((u) => u.id));
    const unknown = wanted.find((id) => !known.has(id));
    if (unknown !== undefined) throw new ScimError(400, `members: "${unknown}" is not a user of this sector.`, 'invalidValue');
    if (found.some((u) => u.isAdmin)) throw new ScimError(403, 'members: an admin of the service is given roles by another admin, never by provisioning.');
    const { added, removed } = await this.roles.setMembers(tx, roleId, wanted);
    // The group's version follows its membership too.
    if (added.length > 0 || removed.length > 0) await this.roles.touch(tx, roleId);
    for (const [ids, key] of [
      [added, 'added'],
      [removed, 'removed'],
    ] as const) {
      for (const userId of ids) {
        await this.audit.record(tx, { type: 'user.roles_changed', sectorId, target: { kind: 'user', id: userId }, details: { added: [], removed: [], [key]: [roleName], scim: true } });
      }
    }
    return [...added, ...removed];
  }

  /** The role name of a display name: lower case, runs of other characters as `-`, starting with a letter, unique in the sector. */
  private async uniqueName(tx: TenantDb, sectorId: string, displayName: string, exceptId: string | null): Promise<string> {
    const taken = await this.roles.groupNameTaken(tx, sectorId, roleNameOf(displayName), displayName, exceptId);
    if (taken.displayName) throw new ScimError(409, 'A group of this sector already has that displayName.', 'uniqueness');
    const base = roleNameOf(displayName);
    for (let i = 1; ; i++) {
      const candidate = i === 1 ? base : `${base.slice(0, 63 - String(i).length - 1)}-${i}`;
      if (i === 1 ? !taken.name : !(await this.roles.groupNameTaken(tx, sectorId, candidate, displayName, exceptId)).name) return candidate;
    }
  }

  private forget(scope: SectorScope, userIds: string[]): void {
    if (userIds.length > FORGET_EACH_MAX) this.cache.flush(scope.route.tenant);
    else for (const id of userIds) this.cache.forget(scope.route.tenant, `u:${id}`);
  }

  private async find(db: TenantDb, scope: SectorScope, id: string): Promise<GroupRow> {
    if (!isUuid(id)) throw notFound();
    const group = await this.roles.findGroup(db, scope.route.sectorId, id);
    if (!group) throw notFound();
    return group;
  }

  private async render(scope: SectorScope, group: GroupRow, withMembers: boolean): Promise<ScimWritten> {
    const members = withMembers ? ((await this.roles.membersOf(scope.db, [group.id])).get(group.id) ?? []) : undefined;
    const base = this.base(scope);
    return { resource: this.toScim(scope, group, members), version: versionOf(group), location: `${base}/Groups/${group.id}` };
  }

  private toScim(scope: SectorScope, group: GroupRow, members: Array<{ id: string; username: string }> | undefined): Record<string, unknown> {
    const base = this.base(scope);
    return {
      schemas: [GROUP_SCHEMA],
      id: group.id,
      ...(group.externalId ? { externalId: group.externalId } : {}),
      displayName: group.displayName || group.name,
      ...(members !== undefined ? { members: members.map((m) => ({ value: m.id, display: m.username, type: 'User', $ref: `${base}/Users/${m.id}` })) } : {}),
      meta: { resourceType: 'Group', created: group.createdAt.toISOString(), lastModified: group.updatedAt.toISOString(), location: `${base}/Groups/${group.id}`, version: versionOf(group) },
    };
  }
}

/** A role name from a display name (`Sales Team` → `sales-team`). */
function roleNameOf(displayName: string): string {
  let name = displayName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_.:-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!/^[a-z]/.test(name)) name = `g-${name}`;
  return name.slice(0, 63).replace(/-+$/, '') || 'group';
}

function groupInput(body: unknown): GroupInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ScimError(400, 'The body must be a SCIM Group object.', 'invalidSyntax');
  const b = body as Record<string, unknown>;
  if (!Array.isArray(b.schemas) || !b.schemas.some((s) => typeof s === 'string' && s.toLowerCase() === GROUP_SCHEMA.toLowerCase())) {
    throw new ScimError(400, `schemas must include ${GROUP_SCHEMA}.`, 'invalidSyntax');
  }
  const displayName = typeof b.displayName === 'string' ? b.displayName.trim() : '';
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (displayName === '' || displayName.length > 256 || /[\u0000-\u001f\u007f]/.test(displayName)) throw new ScimError(400, 'displayName is required: 1 to 256 characters.', 'invalidValue');
  const externalId = b.externalId === undefined || b.externalId === null || b.externalId === '' ? null : b.externalId;
  if (externalId !== null && (typeof externalId !== 'string' || externalId.length > 255)) throw new ScimError(400, 'externalId must be a string of at most 255 characters.', 'invalidValue');
  const members = b.members ?? [];
  if (!Array.isArray(members) || members.length > MAX_MEMBERS) throw new ScimError(400, `members must be an array of at most ${MAX_MEMBERS} values.`, 'invalidValue');
  const ids = members.map((m: unknown, i) => {
    const value = typeof m === 'object' && m !== null ? (m as { value?: unknown }).value : undefined;
    if (typeof value !== 'string') throw new ScimError(400, `members[${i}].value must be a user id.`, 'invalidValue');
    return value;
  });
  return { displayName, externalId, members: ids };
}

function excludesMembers(query: ScimListQuery): boolean {
  const excluded = (query.excludedAttributes ?? '').toLowerCase().split(',').map((a) => a.trim());
  const only = (query.attributes ?? '').toLowerCase().split(',').map((a) => a.trim()).filter(Boolean);
  return excluded.includes('members') || (only.length > 0 && !only.some((a) => a === 'members' || a.startsWith('members.')));
}

