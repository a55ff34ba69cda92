import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { SLUG_MESSAGE, SLUG_PATTERN } from '../../common/validation/validation';

export class SignInOptionsQuery {
  @ApiPropertyOptional({ description: "The sector by id; omitted (and no `tenant`) means the platform tenant's default sector (as for the sign-in operations)." })
  @IsOptional() @IsString() @MaxLength(64) sectorID?: string;

  @ApiPropertyOptional({ description: "The tenant by slug (the sign-in pages' addresses name it: `/t/{tenant}/…`); without `sector`, its default sector. Not together with `sectorID`." })
  @IsOptional() @IsString() @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE }) @Length(2, 63, { message: 'must be 2 to 63 characters' }) tenant?: string;

  @ApiPropertyOptional({ description: 'A sector of `tenant` by slug (`/t/{tenant}/{sector}/…`). Only with `tenant`.' })
  @IsOptional() @IsString() @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE }) @Length(2, 63, { message: 'must be 2 to 63 characters' }) sector?: string;
}

/** How the sector's public pages look (its branding settings; "" = the built-in look). */
export class SignInBranding {
  @ApiProperty({ description: "The name the pages show: BrandDisplayName, else the sector's name." }) displayName: string;
  @ApiProperty({ description: "The logo's address (BrandLogoURL), or empty for the built-in one." }) logoURL: string;
  @ApiProperty({ description: "The favicon's address (BrandFaviconURL), or empty." }) faviconURL: string;
  @ApiProperty({ description: 'BrandPrimaryColor (#rrggbb), or empty.' }) primaryColor: string;
  @ApiProperty({ description: 'The label colour on primaryColor (white or #111111, whichever contrasts more), or empty.' }) primaryTextColor: string;
  @ApiProperty({ description: 'BrandBackgroundColor, or empty.' }) backgroundColor: string;
  @ApiProperty({ description: 'BrandPrimaryColorDark, or empty.' }) primaryColorDark: string;
  @ApiProperty({ description: 'The label colour on primaryColorDark, or empty.' }) primaryTextColorDark: string;
  @ApiProperty({ description: 'BrandBackgroundColorDark, or empty.' }) backgroundColorDark: string;
  @ApiProperty({ description: 'TermsURL, or empty.' }) termsURL: string;
  @ApiProperty({ description: 'PrivacyURL, or empty.' }) privacyURL: string;
  @ApiProperty({ description: 'SupportEmail, or empty.' }) supportEmail: string;
}

export class SignInOptionsResponse {
  @ApiProperty() sectorID: string;
  @ApiProperty({ description: "The sector's name, for the sign-in page's heading." }) sectorName: string;
  @ApiProperty({ description: "The sector's slug (its sign-in pages are under `/t/{tenantSlug}/{sectorSlug}/`)." }) sectorSlug: string;
  @ApiProperty({ description: 'Whether this is its tenant’s default (admin) sector (its pages are also under `/t/{tenantSlug}/`).' }) isDefaultSector: boolean;
  @ApiProperty({ description: "The slug of the sector's tenant." }) tenantSlug: string;
  @ApiProperty({ description: 'Whether anyone may sign up (SelfSignUpAllowed).' }) selfSignUpAllowed: boolean;
  @ApiProperty({ description: 'Whether a second factor is required after a password (MFARequired).' }) mfaRequired: boolean;
  @ApiProperty({ description: 'Whether sign-in links by mail are offered (MagicLinkLoginEnabled).' }) magicLinkLoginEnabled: boolean;
  @ApiProperty({ description: 'The social-login providers enabled in the sector, for its sign-in buttons.', example: ['google', 'github'] }) providers: string[];
  @ApiProperty({ type: SignInBranding }) branding: SignInBranding;
  @ApiProperty({ description: "The sector's DefaultLanguage: the pages' language when neither the user's nor the browser's is one of `languages`.", example: 'en' }) defaultLanguage: string;
  @ApiProperty({ description: 'The languages the pages and mails are available in.', example: ['en', 'de', 'fr'] }) languages: string[];
}
