import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class ForgotPasswordDto {
  @ApiPropertyOptional({ description: "The sector; omitted means the platform tenant's default sector." })
  @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
  @ApiPropertyOptional({ description: 'The account by email (or give username).' }) @IsOptional() @IsString() @MaxLength(320) email?: string;
  @ApiPropertyOptional({ description: 'The account by username (or give email).' }) @IsOptional() @IsString() @MaxLength(320) username?: string;
}

export class MagicLinkBeginDto extends ForgotPasswordDto {
  @ApiPropertyOptional({
    description:
      'The OpenID Provider sign-in request (interaction) the link continues: the mailed link carries it as `interaction`, and the link page then finishes that request in the browser that started it.',
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{22}$/, { message: 'interactionID must be the id of a sign-in request' })
  interactionID?: string;
}

export class LinkSentResponse {
  @ApiProperty({ enum: ['SENT'], description: 'Always SENT, whether or not the account exists (a link is mailed only when it does).' })
  status: 'SENT';
}

export class ResetPasswordDto {
  @ApiProperty({ description: 'The token from the reset link.' }) @IsString() @IsNotEmpty() @MaxLength(128) token: string;
  @ApiProperty({ description: 'The new password: at least 8 characters, at most 72 bytes, not the email.' }) @IsString() @IsNotEmpty() newPassword: string;
}

export class LinkTokenDto {
  @ApiProperty({ description: 'The token from the link.' }) @IsString() @IsNotEmpty() @MaxLength(128) token: string;
}

export class EmailVerificationSentResponse {
  @ApiProperty() sub: string;
  @ApiProperty({ enum: ['SENT'] }) status: 'SENT';
}

export class EmailVerifiedResponse {
  @ApiProperty() sub: string;
  @ApiProperty() emailVerified: boolean;
}

export class EmailChangeConfirmedResponse {
  @ApiProperty() sub: string;
  @ApiProperty({ description: "The user's email address: the one the link confirmed." }) email: string;
  @ApiProperty() emailVerified: boolean;
}
