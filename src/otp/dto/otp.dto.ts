import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class CreateOtpRegistrationDto {
  @ApiProperty({ enum: ['email', 'sms', 'totp'] }) @IsIn(['email', 'sms', 'totp']) type: 'email' | 'sms' | 'totp';
  @ApiPropertyOptional({ description: 'An email address (email) or an E.164 number (sms); ignored for totp.' })
  @IsOptional() @IsString() @MaxLength(320) destination?: string;
  @ApiPropertyOptional({
    description: "The current password, when the caller adds a factor to their own account and the sign-in behind the access token is older than five minutes (else REAUTHENTICATION_REQUIRED).",
  })
  @IsOptional() @IsString() @MaxLength(1024) currentPassword?: string;
}

export class CreateOtpRegistrationResponse {
  @ApiProperty() registrationID: string;
  @ApiProperty({ enum: ['email', 'sms', 'totp'] }) type: string;
  @ApiProperty({ description: 'TOTP only, shown once: the base32 secret.' }) secret: string;
  @ApiProperty({ description: 'TOTP only, shown once: the otpauth:// URL for a QR code.' }) otpauthURL: string;
}

export class VerifyOtpRegistrationDto {
  @ApiProperty({ description: 'The code received (or shown by the authenticator app).' })
  @IsString() @IsNotEmpty() @MaxLength(16) code: string;
}

export class OtpRegistrationResponse {
  @ApiProperty() registrationID: string;
  @ApiProperty({ enum: ['email', 'sms', 'totp'] }) type: string;
  @ApiProperty({ description: 'Masked email or phone number; empty for totp.' }) destination: string;
  @ApiProperty() verified: boolean;
}

export class ListOtpRegistrationsResponse {
  @ApiProperty({ type: [OtpRegistrationResponse] }) registrations: OtpRegistrationResponse[];
}

export class OtpRegistrationIdResponse {
  @ApiProperty() registrationID: string;
}
