import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** What a user has granted one app of their sector's OpenID Provider. */
export class OidcGrantResponse {
  @ApiProperty() clientID: string;
  @ApiProperty({ description: 'The app’s name (its client ID when it registered none).' }) clientName: string;
  @ApiPropertyOptional() logoURI?: string;
  @ApiPropertyOptional() clientURI?: string;
  @ApiProperty({ description: 'An app of the sector’s own (granted without a consent screen).' }) firstParty: boolean;
  @ApiProperty({ type: [String], description: 'The scopes granted (e.g. openid, email, offline_access).' }) scopes: string[];
  @ApiProperty({ type: [String], description: 'Claims granted beyond the scopes’ own (through the claims parameter).' }) claims: string[];
  @ApiProperty({ format: 'date-time', description: 'When the user first granted the app anything that is still granted.' }) grantedAt: string;
  @ApiProperty({ format: 'date-time', description: 'When the grant lapses unless used again.' }) expiresAt: string;
}

export class ListOidcGrantsResponse {
  @ApiProperty({ type: [OidcGrantResponse] }) grants: OidcGrantResponse[];
}

export class RevokeOidcGrantResponse {
  @ApiProperty() clientID: string;
}
