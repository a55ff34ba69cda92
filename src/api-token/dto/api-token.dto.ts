import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class CreateApiTokenDto {
  @ApiProperty({ description: 'A label for the token, 1 to 200 characters.' }) @IsString() @Length(1, 200) name: string;
}

export class ApiTokenResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() sectorID: string;
  @ApiProperty({ description: 'The first 8 characters of the token.' }) prefix: string;
  @ApiProperty({ type: 'string', format: 'int64' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'int64', description: '"0" when never used.' }) lastUsedAt: string;
}

export class CreateApiTokenResponse {
  @ApiProperty({ description: 'The plaintext token; shown only in this response.' }) token: string;
  @ApiProperty({ type: ApiTokenResponse }) apiToken: ApiTokenResponse;
}

export class ListApiTokensResponse {
  @ApiProperty({ type: [ApiTokenResponse] }) apiTokens: ApiTokenResponse[];
}

export class RevokeApiTokenResponse {
  @ApiProperty() id: string;
}
