import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class IntrospectDto {
  @ApiProperty({ description: 'An access token issued by this service.' })
  @IsString() @IsNotEmpty() @MaxLength(8192) token: string;
}

export class IntrospectionResponse {
  @ApiProperty() sub: string;
  @ApiProperty() username: string;
  @ApiProperty() sectorID: string;
  @ApiProperty({ description: "The user's admin flag as stored now." }) isAdmin: boolean;
  @ApiProperty({ type: [String], description: "The names of the roles the user holds now (sorted); a role taken away, renamed or deleted shows at once." })
  roles: string[];
  @ApiProperty({ type: [String], description: "The union of the permissions of the user's roles as stored now (sorted)." })
  permissions: string[];
  @ApiProperty({ type: 'string', format: 'int64', description: 'Expiry, Unix seconds.' }) exp: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Issued at, Unix seconds.' }) iat: string;
  @ApiProperty() tenantID: string;
}
