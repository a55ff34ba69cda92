import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { SectorMessages } from '../mail/sector-messages';
import { isUuid } from '../common/wire/wire';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { RoleRepository } from '../role/role.repository';
import { SectorScope } from '../settings/sector-scope';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantDb } from '../tenancy/tenant-db';
import { newUser } from '../user/new-user';
import { AfterSignOut } from '../user/sign-out-hooks';
import { UserEntity } from '../user/user.entity';
import { UserRepository } from '../user/user.repository';
import { UserService } from '../user/user.service';
import { ScimError } from './scim-error';
import { parseScimFilter } from './scim-filter';
import { applyPatch } from './scim-patch';
import { checkVersion, listWindow, project, ScimListQuery, versionOf } from './scim-resources';
import { ScimUserRow, scimUserInput, toScimUser, userColumns } from './scim-user';
import { ENTERPRISE_SCHEMA, userFilterSql, USER_SCHEMA } from './scim-user-query';

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** What a write answers: the resource, and its version for the ETag header. */
export interface ScimWritten {
  resource: Record<string, unknown>;
  version: string;
  location: string;
}

const notFound = () => new ScimError(404, 'No such user in this sector.');

/**
 * SCIM Users of a sector (RFC 7644 §3), on the sector's users: created without a
 * password (nothing is mailed), replaced, patched, deleted, listed with filters.
 * The caller is an API token of the sector, so the bounds of API tokens hold: a
 * user who is an admin is read but never changed (403). What the directory sets
 * it owns: a changed email is neither verified nor admin-set, so no recovery link
 * ever goes to an address only the directory vouched for.
 */
@Injectable()
export class ScimUserService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UserRepository,
    private readonly userService: UserService,
    private readonly roles: RoleRepository,
    private readonly audit: AuditService,
    private readonly cache: AuthStateCache,
    private readonly messages: SectorMessages,
  ) {}

  base(scope: SectorScope): string {
    return `${this.config.publicUrl}/scim/v2/${scope.route.sectorId}`;
  }

  async get(scope: SectorScope, id: string, query: ScimListQuery = {}): Promise<ScimWritten> {
    const row = await this.find(scope.db, scope, id);
    const written = await this.render(scope, row);
    return { ...written, resource: project(written.resource, query) };
  }

  async list(scope: SectorScope, query: ScimListQuery): Promise<Record<string, unknown>> {
    const { startIndex, count } = listWindow(query);
    const params: unknown[] = [scope.route.sectorId];
    const where = query.filter ? `u.sector_id = $1 AND ${userFilterSql(parseScimFilter(query.filter), params)}` : 'u.sector_id = $1';
    const [{ n }] = await scope.db.read<{ n: number }>(`SELECT count(*)::int AS n FROM users u WHERE ${where}`, params);
    let resources: Record<string, unknown>[] = [];
    if (count > 0 && startIndex <= n) {
      const page = await scope.db.read<{ id: string }>(
        `SELECT u.id FROM users u WHERE ${where} ORDER BY u.created_at, u.id OFFSET ${startIndex - 1} LIMIT ${count}`,
        params,
      );
      const ids = page.map((r) => r.id);
      const rows = await scope.db.findEntities(UserEntity, 'id = ANY($1::uuid[])', [ids]);
      const byId = new Map(rows.map((r) => [r.id, r as unknown as ScimUserRow]));
      const groups = await this.roles.heldBy(scope.db, ids);
      const base = this.base(scope);
      resources = ids.flatMap((id) => {
        const row = byId.get(id);
        return row ? [project(toScimUser(row, groups.get(id) ?? [], base), query)] : [];
      });
    }
    return { schemas: [LIST_SCHEMA], totalResults: n, itemsPerPage: resources.length, startIndex, Resources: resources };
  }

  async create(scope: SectorScope, body: unknown): Promise<ScimWritten> {
    const input = scimUserInput(body);
    const columns = userColumns(input);
    const sectorId = scope.route.sectorId;
    const user = Object.assign(newUser({ sectorId, email: columns.email ?? '', username: input.userName, passwordHash: null, isAdmin: false }), columns);
    user.disabledAt = input.active ? null : new Date();
    const invite = user.email !== '' && (await scope.settings()).scimSendInvitations;
    // The invitation, when the sector asks for one, is written with the user and mailed after the commit.
    await this.messages.inTransaction(scope, async (tx) => {
      await this.users.lockSectorLogins(tx, sectorId);
      if (await this.users.loginTaken(tx, sectorId, [user.username, user.email].filter(Boolean))) {
        throw new ScimError(409, 'A user of this sector already has that userName or email.', 'uniqueness');
      }
      await this.users.insert(tx, user as unknown as UserEntity);
      await this.audit.record(tx, { type: 'user.created', sectorId, target: { kind: 'user', id: user.id }, details: { isAdmin: false, invited: invite, scim: true } });
      if (invite) await this.userService.inviteInTransaction(tx, scope, user as unknown as UserEntity, { scim: true });
    });
    return this.render(scope, await this.find(scope.db, scope, user.id));
  }

  /** PUT: the user becomes what the body says (attributes it leaves out are cleared). */
  async replace(scope: SectorScope, id: string, body: unknown, ifMatch?: string): Promise<ScimWritten> {
    return this.write(scope, id, ifMatch, () => body);
  }

  /** PATCH: the operations applied to the user as SCIM shows them, then stored like a PUT. */
  async patch(scope: SectorScope, id: string, body: unknown, ifMatch?: string): Promise<ScimWritten> {
    return this.write(scope, id, ifMatch, (current) => applyPatch(current, body, USER_SCHEMA, [ENTERPRISE_SCHEMA]));
  }

  /** DELETE: the user is deleted and their tokens stop at once (UserService.delete). */
  async delete(scope: SectorScope, id: string, ifMatch?: string): Promise<void> {
    const row = await this.find(scope.db, scope, id);
    checkVersion(row, ifMatch);
    if (row.isAdmin) throw adminRefused();
    await this.userService.delete({ id: row.id, isAdmin: row.isAdmin, scope });
  }

  private async write(scope: SectorScope, id: string, ifMatch: string | undefined, next: (current: Record<string, unknown>) => unknown): Promise<ScimWritten> {
    const before = await this.find(scope.db, scope, id);
    checkVersion(before, ifMatch);
    if (before.isAdmin) throw adminRefused();
    const current = toScimUser(before, [], this.base(scope));
    delete current.meta;
    delete current.groups;
    const input = scimUserInput(next(current));
    const columns = userColumns(input);
    const sectorId = scope.route.sectorId;
    const patch: Partial<ScimUserRow> = {};
    for (const [key, value] of Object.entries(columns) as Array<[keyof ScimUserRow, unknown]>) {
      if (JSON.stringify(value) !== JSON.stringify(before[key])) (patch as Record<string, unknown>)[key] = value;
    }
    const emailChanged = patch.email !== undefined && patch.email.toLowerCase() !== before.email.toLowerCase();
    if (emailChanged) Object.assign(patch, { emailVerified: false, emailAdminSet: false });
    if (patch.phoneNumber !== undefined) patch.phoneNumberVerified = false;
    const stateChange = input.active !== (before.disabledAt === null);
    let after: AfterSignOut | undefined;
    await scope.db.transaction(async (tx) => {
      if (patch.username !== undefined || emailChanged) {
        await this.users.lockSectorLogins(tx, sectorId);
        const logins = [patch.username, emailChanged ? patch.email : undefined].filter((l): l is string => Boolean(l));
        if (await this.users.loginTaken(tx, sectorId, logins, before.id)) throw new ScimError(409, 'A user of this sector already has that userName or email.', 'uniqueness');
      }
      if (Object.keys(patch).length > 0) {
        await this.users.update(tx, before.id, patch as Partial<UserEntity>);
        const fields = Object.keys(patch).filter((f) => f !== 'emailAdminSet').sort();
        await this.audit.record(tx, { type: 'user.updated', sectorId, target: { kind: 'user', id: before.id }, details: { fields, scim: true } });
      }
      if (stateChange) after = await this.userService.setDisabled(tx, before as unknown as UserEntity, !input.active);
    });
    this.cache.forget(scope.route.tenant, `u:${before.id}`);
    await after?.();
    return this.render(scope, await this.find(scope.db, scope, before.id));
  }

  private async find(db: TenantDb, scope: SectorScope, id: string): Promise<ScimUserRow> {
    if (!isUuid(id)) throw notFound();
    const row = (await db.findEntities(UserEntity, 'id = $1', [id]))[0] as unknown as ScimUserRow | undefined;
    if (!row || row.sectorId !== scope.route.sectorId) throw notFound();
    return row;
  }

  private async render(scope: SectorScope, row: ScimUserRow): Promise<ScimWritten> {
    const groups = (await this.roles.heldBy(scope.db, [row.id])).get(row.id) ?? [];
    const base = this.base(scope);
    return { resource: toScimUser(row, groups, base), version: versionOf(row), location: `${base}/Users/${row.id}` };
  }
}

const adminRefused = () => new ScimError(403, 'This user is an admin of the service: admins are managed in the console or the API by another admin, never by provisioning.');

