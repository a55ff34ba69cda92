import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class PasswordLoginDto {
  @ApiPropertyOptional({ description: 'Username or email (case-insensitive); required when starting a new flow.' })
  @IsOptional() @IsString() @MaxLength(320) username?: string;
  @ApiPropertyOptional({ description: 'The password.' })
  @IsOptional() @IsString() @MaxLength(1024) password?: string;
  @ApiPropertyOptional({ description: 'Continue this authentication transaction.' })
  @IsOptional() @IsString() @MaxLength(128) transactionID?: string;
  @ApiPropertyOptional({ description: "The sector; omitted means the platform tenant's default sector." })
  @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
}

export class AuthResultResponse {
  @ApiProperty({ description: 'The authentication transaction; proves self-access after SUCCESS.' }) transactionID: string;
  @ApiProperty({ enum: ['SUCCESS', 'MFA_REQUIRED', 'MFA_ENROLLMENT_REQUIRED'] }) status: string;
  @ApiProperty({ enum: ['', 'PASSWORD', 'OTP', 'WEBAUTHN', 'EMAIL_OTP_ENROLLMENT'], description: 'The next challenge; empty on SUCCESS.' })
  challengeType: string;
  @ApiPropertyOptional({ description: 'JWT access token; present only when status is SUCCESS.' }) token?: string;
}

export class AcceptInviteDto {
  @ApiProperty({ description: 'The token from the invitation link.' }) @IsString() @IsNotEmpty() @MaxLength(128) token: string;
  @ApiProperty({ description: 'The password to set: at least 8 characters, at most 72 bytes, not the email.' })
  @IsString() @IsNotEmpty() password: string;
}
