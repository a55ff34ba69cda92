import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsInt, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { IsHostnameOrEmpty, IsOriginList, QueryInt, SLUG_MESSAGE, SLUG_PATTERN } from '../../common/validation/validation';

export class SectorResponse {
  @ApiProperty() sectorID: string;
  @ApiProperty() name: string;
  @ApiProperty() domain: string;
  @ApiProperty() isDefault: boolean;
  @ApiProperty({ type: [String] }) allowedOrigins: string[];
  @ApiProperty() slug: string;
}

export class ListSectorsResponse {
  @ApiProperty({ type: [SectorResponse] }) sectors: SectorResponse[];
  @ApiProperty({ type: 'integer', format: 'int32' }) totalCount: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) totalPages: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) currentPage: number;
}

export class ListSectorsQuery {
  @ApiPropertyOptional({ type: 'integer', format: 'int32', description: 'Default 20, at most 100.' })
  @IsOptional() @QueryInt() @IsInt() pageSize?: number;
  @ApiPropertyOptional({ type: 'integer', format: 'int32', description: '1-based.' })
  @IsOptional() @QueryInt() @IsInt() page?: number;
  @ApiPropertyOptional({ description: 'Case-insensitive substring of name or domain.' })
  @IsOptional() @IsString() @MaxLength(200) searchTerm?: string;
  @ApiPropertyOptional({ description: 'Exact domain, case-insensitive.' })
  @IsOptional() @IsString() @MaxLength(253) filterDomain?: string;
}

export class CreateSectorDto {
  @ApiProperty() @IsString() @Length(1, 200) name: string;
  @ApiPropertyOptional({ description: 'DNS host name of the sector (WebAuthn relying-party fallback).' })
  @IsOptional() @IsString() @IsHostnameOrEmpty() domain?: string;
  @ApiProperty({ description: 'Lowercase letters, digits and -, 2 to 63 characters; unique in the tenant.' })
  @IsString() @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE }) @Length(2, 63, { message: 'must be 2 to 63 characters' }) slug: string;
  @ApiPropertyOptional({ type: [String], description: 'Origins allowed for redirects and browser flows.' })
  @IsOptional() @IsArray() @IsOriginList() allowedOrigins?: string[];
  @ApiPropertyOptional({ description: 'Ignored: a tenant has exactly one default sector.' })
  @IsOptional() @IsBoolean() isDefault?: boolean;
}
