import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsEmail, IsInt, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { QueryBoolean, QueryInt, SLUG_MESSAGE, SLUG_PATTERN } from '../../common/validation/validation';
import { SectorResponse } from '../../sector/dto/sector.dto';

const SERVER_DESCRIPTION = "The PostgreSQL server holding the tenant's tables, by the name TENANT_DATABASE_SERVERS gives it (`main`: the main database's server, also for schema mode and the platform). Never a URL.";

export class ProvisionTenantDto {
  @ApiProperty({ description: 'Lowercase letters, digits and -, 2 to 63 characters; unique on the platform.' })
  @IsString() @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE }) @Length(2, 63, { message: 'must be 2 to 63 characters' }) slug: string;
  @ApiProperty() @IsString() @Length(1, 200) name: string;
  @ApiPropertyOptional({ description: "Email of the tenant's first admin, created in its default sector." })
  @IsOptional() @IsString() @IsEmail({}, { message: 'must be an email address' }) @MaxLength(320) adminEmail?: string;
  @ApiPropertyOptional({ description: "The first admin's password (at least 8 characters, at most 72 bytes); required with adminEmail." })
  @IsOptional() @IsString() adminPassword?: string;
  @ApiPropertyOptional({
    description:
      'Pooled mode: the PostgreSQL server for the tenant database, by the name TENANT_DATABASE_SERVERS gives it (`main` is the main database\'s server). Default: the server with the fewest tenants.',
  })
  @IsOptional() @IsString() @Matches(/^[a-z][a-z0-9-]{0,31}$/, { message: 'must name a configured database server' }) databaseServer?: string;
}

export class ProvisionTenantResponse {
  @ApiProperty() tenantID: string;
  @ApiProperty() slug: string;
  @ApiProperty() kid: string;
  @ApiProperty({ description: SERVER_DESCRIPTION }) databaseServer: string;
  @ApiProperty({ type: SectorResponse }) sector: SectorResponse;
}

export class GetTenantQuery {
  @ApiPropertyOptional({ description: 'Check whether the tenant database is reachable.' })
  @IsOptional() @QueryBoolean() @IsBoolean() ping?: boolean;
  @ApiPropertyOptional({ description: 'Open the tenant database read-only for counts.' })
  @IsOptional() @QueryBoolean() @IsBoolean() includeStats?: boolean;
}

export class TenantResponse {
  @ApiProperty() tenantID: string;
  @ApiProperty() slug: string;
  @ApiProperty() kid: string;
  @ApiProperty() isPlatform: boolean;
  @ApiProperty({ description: SERVER_DESCRIPTION }) databaseServer: string;
  @ApiProperty() rootSectorID: string;
  @ApiProperty({ type: 'integer', format: 'int32' }) sectorCount: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) subSectorCount: number;
}

export class ListTenantsQuery {
  @ApiPropertyOptional({ type: 'integer', format: 'int32', description: 'Default 20, at most 100.' })
  @IsOptional() @QueryInt() @IsInt() pageSize?: number;
  @ApiPropertyOptional({ type: 'integer', format: 'int32', description: '1-based.' })
  @IsOptional() @QueryInt() @IsInt() page?: number;
  @ApiPropertyOptional({ description: 'Case-insensitive substring of the slug or the name.' })
  @IsOptional() @IsString() @MaxLength(200) searchTerm?: string;
}

export class TenantListItem extends TenantResponse {
  @ApiProperty() name: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
}

export class ListTenantsResponse {
  @ApiProperty({ type: [TenantListItem] }) tenants: TenantListItem[];
  @ApiProperty({ type: 'integer', format: 'int32' }) totalCount: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) totalPages: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) currentPage: number;
}

export class TenantSectorSummary {
  @ApiProperty() sectorID: string;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty() isDefault: boolean;
}

export class TenantStats {
  @ApiProperty({ type: 'integer', format: 'int32' }) userCount: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) pendingInviteCount: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) adminCount: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) apiTokenCount: number;
  @ApiProperty() mfaRequired: boolean;
  @ApiProperty() selfSignupAllowed: boolean;
  @ApiProperty() webauthnConfigured: boolean;
}

export class GetTenantResponse {
  @ApiProperty({ type: TenantResponse }) tenant: TenantResponse;
  @ApiProperty({ type: [TenantSectorSummary] }) sectors: TenantSectorSummary[];
  @ApiProperty() reachable: boolean;
  @ApiProperty() reachError: string;
  @ApiPropertyOptional({ type: TenantStats, description: 'Present only with includeStats=true.' }) stats?: TenantStats;
}
