import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** A role's name: lower case, starting with a letter, up to 63 characters of letters, digits and `_ . : -`. */
export const ROLE_NAME = /^[a-z][a-z0-9_.:-]{0,62}$/;
/** A permission: 1 to 128 printable characters (no control characters), not starting or ending with a space. */
const PERMISSION = /^(?=\S)[^\p{C}]{1,128}$(?<=\S)/u;
const MAX_PERMISSIONS_PER_ROLE = 100;
export const MAX_ROLES_PER_SECTOR = 1000;

export class PutRoleDto {
  @ApiPropertyOptional({ description: 'What the role is for, up to 1,000 characters. Absent: empty.', maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional({
    type: [String],
    description:
      "The permission strings the tenant's apps check (for example `invoices:read`): at most 100, each 1 to 128 printable characters. Duplicates are dropped. Absent: none.",
    maxItems: MAX_PERMISSIONS_PER_ROLE,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_PERMISSIONS_PER_ROLE)
  @IsString({ each: true })
  @Matches(PERMISSION, { each: true, message: 'each permission must be 1 to 128 printable characters, without a leading or trailing space' })
  permissions?: string[];
}

export class RoleResponse {
  @ApiProperty({ description: 'Unique in the sector: a lower-case letter, then up to 62 lower-case letters, digits and `_ . : -`.', pattern: '^[a-z][a-z0-9_.:-]{0,62}$' }) name: string;
  @ApiProperty() description: string;
  @ApiProperty({ type: [String], description: 'In the order given, without duplicates.' }) permissions: string[];
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds.' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds.' }) updatedAt: string;
}

export class ListRolesResponse {
  @ApiProperty({ type: [RoleResponse], description: 'Every role of the sector, by name.' }) roles: RoleResponse[];
}

export class DeleteRoleResponse {
  @ApiProperty() name: string;
}

export class SetUserRolesDto {
  @ApiProperty({ type: [String], description: "The names of roles of the user's sector; the user holds exactly these afterwards.", maxItems: MAX_ROLES_PER_SECTOR })
  @IsArray()
  @ArrayMaxSize(MAX_ROLES_PER_SECTOR)
  @IsString({ each: true })
  roles: string[];
}

export class UserRolesResponse {
  @ApiProperty({ type: [String], description: 'The names of the roles the user holds, sorted.' }) roles: string[];
  @ApiProperty({ type: [String], description: "The union of those roles' permissions, sorted." }) permissions: string[];
}
