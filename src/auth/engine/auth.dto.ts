import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsEmail, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { UserProfileInput } from '../../user/dto/user.dto';

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
  @ApiPropertyOptional({ description: 'Refresh token of the new session (POST /api/v1/token/refresh; single use, rotated); present only when status is SUCCESS.' })
  refreshToken?: string;
}

export class AcceptInviteDto {
  @ApiProperty({ description: 'The token from the invitation link.' }) @IsString() @IsNotEmpty() @MaxLength(128) token: string;
  @ApiProperty({ description: 'The password to set: at least 8 characters, at most 72 bytes, not the email.' })
  @IsString() @IsNotEmpty() password: string;
}

export class OtpBeginDto {
  @ApiPropertyOptional({ description: 'Username or email; required when starting a new flow.' })
  @IsOptional() @IsString() @MaxLength(320) username?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) transactionID?: string;
  @ApiPropertyOptional({ description: "The OTP registration to use; the user's primary (first verified) one when omitted." })
  @IsOptional() @IsString() @MaxLength(64) registrationID?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
}

export class OtpBeginResponse {
  @ApiProperty() transactionID: string;
}

export class OtpLoginDto {
  @ApiPropertyOptional({ description: 'Username or email; required when starting a new flow.' })
  @IsOptional() @IsString() @MaxLength(320) username?: string;
  @ApiPropertyOptional({ description: 'The one-time code.' }) @IsOptional() @IsString() @MaxLength(16) password?: string;
  @ApiPropertyOptional({ description: 'The one-time code (alternative to password).' }) @IsOptional() @IsString() @MaxLength(16) code?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) transactionID?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
}

export class SignupDto {
  @ApiPropertyOptional({ description: "The sector; omitted means the platform tenant's default sector." })
  @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
  @ApiProperty() @IsString() @MaxLength(320) @IsEmail({}, { message: 'must be an email address' }) email: string;
  @ApiProperty({ description: 'At least 8 characters, at most 72 bytes, not the email.' }) @IsString() @IsNotEmpty() password: string;
  @ApiPropertyOptional({ description: 'Defaults to the email.' })
  @IsOptional() @IsString() @Matches(/^[^\s]{1,320}$/, { message: 'must be 1 to 320 characters without spaces' }) username?: string;
  @ApiPropertyOptional({ type: UserProfileInput }) @IsOptional() @ValidateNested() @Type(() => UserProfileInput) profile?: UserProfileInput;
}

export class SignupMfaBeginDto {
  @ApiProperty({ description: 'The transaction a password login or signup left at MFA_ENROLLMENT_REQUIRED (note the spelling).' })
  @IsString() @IsNotEmpty() @MaxLength(128) transactionId: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
  @ApiProperty({ description: "The user's email address." }) @IsString() @MaxLength(320) @IsEmail({}, { message: 'must be an email address' }) email: string;
}

export class SignupMfaVerifyDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
  @ApiProperty() @IsString() @MaxLength(320) @IsEmail({}, { message: 'must be an email address' }) email: string;
  @ApiProperty({ description: 'The code received by mail.' }) @IsString() @IsNotEmpty() @MaxLength(16) code: string;
  @ApiProperty({ description: 'Required; the same transaction used when enrollment was begun (note the spelling).' })
  @IsString() @IsNotEmpty() @MaxLength(128) transactionId: string;
}

export class SignupMfaVerifyResponse {
  @ApiProperty({ description: 'JWT access token.' }) token: string;
  @ApiProperty({ description: 'Refresh token of the new session (POST /api/v1/token/refresh).' }) refreshToken: string;
}
