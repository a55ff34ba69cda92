import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class HandOverBrowserSessionDto {
  @ApiProperty({ description: 'The refresh token of the sign-in that issued the bearer access token (handed over once; the page forgets it).' })
  @IsString() @IsNotEmpty() @MaxLength(128) refreshToken: string;
}

export class HandOverBrowserSessionResponse {
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds at which the session cookie expires unless a refresh renews it.' }) expiresAt: string;
}

export class BrowserSessionRefreshResponse {
  @ApiProperty({ description: 'A new JWT access token of the same session (the next refresh token stays in the cookie).' }) token: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds at which the renewed session cookie expires unless a refresh renews it.' }) expiresAt: string;
}

export class EndBrowserSessionResponse {}
