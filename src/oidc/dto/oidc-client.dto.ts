import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUrl, Length } from 'class-validator';

/** Grants an app may use at its issuer. */
const OIDC_GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'] as const;
/** How an app authenticates at the token endpoint (`none`: a public client, PKCE only). */
const OIDC_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'] as const;

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
const HTTPS_URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['https'] };

/** An app as an admin creates or replaces it (what it may do; the provider checks the rest as RFC 7591 does). */
export class OidcClientInput {
  @ApiProperty({ description: 'What users see on the sign-in page.', maxLength: 200 }) @IsString() @Length(1, 200) clientName: string;
  @ApiPropertyOptional({ type: [String], description: 'Exact redirect URIs (https; http for loopback and native apps). Needed for authorization_code.' })
  @IsOptional() @IsArray() @ArrayMaxSize(20) @IsUrl(URL_OPTIONS, { each: true, message: 'each must be an http(s) URL' }) redirectURIs?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Where RP-initiated logout may send the browser back to.' })
  @IsOptional() @IsArray() @ArrayMaxSize(20) @IsUrl(URL_OPTIONS, { each: true, message: 'each must be an http(s) URL' }) postLogoutRedirectURIs?: string[];
  @ApiPropertyOptional({ type: [String], enum: OIDC_GRANT_TYPES, description: 'Default: authorization_code and refresh_token.' })
  @IsOptional() @IsArray() @ArrayMaxSize(4) @IsIn(OIDC_GRANT_TYPES, { each: true }) grantTypes?: string[];
  @ApiPropertyOptional({ enum: OIDC_AUTH_METHODS, description: 'Default: client_secret_basic.' })
  @IsOptional() @IsIn(OIDC_AUTH_METHODS) tokenEndpointAuthMethod?: string;
  @ApiPropertyOptional({ description: 'The app’s JWK Set URL (private_key_jwt).' }) @IsOptional() @IsUrl(URL_OPTIONS) jwksURI?: string;
  @ApiPropertyOptional({ description: 'Where back-channel logout tokens go (https; see OUTBOUND_ALLOW_PRIVATE_NETWORKS).' })
  @IsOptional() @IsUrl(URL_OPTIONS) backchannelLogoutURI?: string;
  @ApiPropertyOptional({ description: 'The app’s logo (https), shown on the sign-in, consent and account pages.' })
  @IsOptional() @IsUrl(HTTPS_URL_OPTIONS) logoURI?: string;
  @ApiPropertyOptional({ description: 'The app’s home page (https).' }) @IsOptional() @IsUrl(HTTPS_URL_OPTIONS) clientURI?: string;
  @ApiPropertyOptional({ description: 'The app’s privacy policy (https).' }) @IsOptional() @IsUrl(HTTPS_URL_OPTIONS) policyURI?: string;
  @ApiPropertyOptional({ description: 'The app’s terms of service (https).' }) @IsOptional() @IsUrl(HTTPS_URL_OPTIONS) tosURI?: string;
  @ApiPropertyOptional({
    description: 'An app of the sector’s own (its users are never asked for consent) or a third party’s (each user consents once to what it asks). Default on create: true; on replace: unchanged.',
  })
  @IsOptional() @IsBoolean() firstParty?: boolean;
}

export class OidcClientResponse {
  @ApiProperty() clientID: string;
  @ApiProperty() clientName: string;
  @ApiProperty({ type: [String] }) redirectURIs: string[];
  @ApiProperty({ type: [String] }) postLogoutRedirectURIs: string[];
  @ApiProperty({ type: [String], enum: OIDC_GRANT_TYPES }) grantTypes: string[];
  @ApiProperty({ enum: OIDC_AUTH_METHODS }) tokenEndpointAuthMethod: string;
  @ApiPropertyOptional() jwksURI?: string;
  @ApiPropertyOptional() backchannelLogoutURI?: string;
  @ApiPropertyOptional() logoURI?: string;
  @ApiPropertyOptional() clientURI?: string;
  @ApiPropertyOptional() policyURI?: string;
  @ApiPropertyOptional() tosURI?: string;
  @ApiProperty({ description: 'An app of the sector’s own: its users are never asked for consent (a third-party app asks each user once).' }) firstParty: boolean;
  @ApiProperty({ description: 'Where its RFC 7592 registration lives (managed there with its registration access token, when it has one).' }) registrationClientURI: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class ListOidcClientsResponse {
  @ApiProperty({ description: 'The sector’s issuer, `{PUBLIC_URL}/oidc/{tenant slug}/{sector slug}` (discovery at `{issuer}/.well-known/openid-configuration`).' })
  issuer: string;
  @ApiProperty({ type: [OidcClientResponse] }) clients: OidcClientResponse[];
}

export class CreateOidcClientResponse {
  @ApiProperty({ type: OidcClientResponse }) client: OidcClientResponse;
  @ApiPropertyOptional({ description: 'The client secret of a confidential app: shown only here and when rotated, stored sealed.' }) clientSecret?: string;
}

export class RotateOidcClientSecretResponse {
  @ApiProperty({ description: 'The new client secret (shown only here); the old one stops working at once.' }) clientSecret: string;
}

export class DeleteOidcClientResponse {}
