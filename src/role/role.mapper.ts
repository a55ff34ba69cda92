import { unixSeconds } from '../common/wire/wire';
import { RoleResponse } from './dto/role.dto';
import { RoleRow } from './role.repository';

export function toRoleResponse(row: RoleRow): RoleResponse {
  return {
    name: row.name,
    description: row.description,
    permissions: row.permissions,
    createdAt: unixSeconds(row.createdAt),
    updatedAt: unixSeconds(row.updatedAt),
  };
}
