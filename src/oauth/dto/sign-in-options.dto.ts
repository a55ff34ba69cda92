import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export class SignInOptionsQuery {
  @ApiPropertyOptional({ description: "The sector; omitted means the platform tenant's default sector (as for the sign-in operations)." })
  @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
}

export class SignInOptionsResponse {
  @ApiProperty() sectorID: string;
  @ApiProperty({ description: "The sector's name, for the sign-in page's heading." }) sectorName: string;
  @ApiProperty({ description: 'Whether anyone may sign up (SelfSignUpAllowed).' }) selfSignUpAllowed: boolean;
  @ApiProperty({ description: 'Whether a second factor is required after a password (MFARequired).' }) mfaRequired: boolean;
  @ApiProperty({ description: 'Whether sign-in links by mail are offered (MagicLinkLoginEnabled).' }) magicLinkLoginEnabled: boolean;
  @ApiProperty({ description: 'The social-login providers enabled in the sector, for its sign-in buttons.', example: ['google', 'github'] }) providers: string[];
}
