import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class RefreshTokenDto {
  @ApiProperty({ description: 'The refresh token of the latest sign-in or refresh (single use).' })
  @IsString() @IsNotEmpty() @MaxLength(128) refreshToken: string;
}

export class RefreshTokenResponse {
  @ApiProperty({ description: 'A new JWT access token of the same session.' }) token: string;
  @ApiProperty({ description: 'The next refresh token; the one presented is used up.' }) refreshToken: string;
}

export class LogoutResponse {}

export class SessionResponse {
  @ApiProperty({ format: 'uuid', description: 'The session id (the `sid` claim of its access tokens).' }) id: string;
  @ApiProperty() sectorID: string;
  @ApiProperty({ description: 'Client address at sign-in or at the latest refresh.' }) clientIP: string;
  @ApiProperty() userAgent: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds.' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds of the sign-in or the latest refresh.' }) lastSeenAt: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds; the session ends then at the latest.' }) expiresAt: string;
  @ApiProperty({ description: "The session of the caller's own access token." }) current: boolean;
}

export class ListSessionsResponse {
  @ApiProperty({ type: [SessionResponse] }) sessions: SessionResponse[];
}

export class RevokeSessionResponse {
  @ApiProperty() id: string;
}

export class ReauthenticateDto {
  @ApiProperty({ description: "The user's current password (counted by the password throttle like a sign-in)." })
  @IsString() @IsNotEmpty() @MaxLength(1024) currentPassword: string;
}

export class ReauthenticateResponse {
  @ApiProperty({ description: 'A new JWT access token of the same session whose `auth_time` is now: it passes the step-up check for five minutes.' }) token: string;
}
