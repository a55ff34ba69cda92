import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

/** One provider's configuration as an admin writes it (every field optional: absent keeps the stored value). */
export class OAuthProviderAdminConfig {
  @ApiPropertyOptional() enabled?: boolean;
  @ApiPropertyOptional({ description: "The client ID at the provider (Apple: the Services ID; a GitHub App: its client ID)." }) clientID?: string;
  @ApiPropertyOptional({ description: 'Write-only; empty or absent keeps the stored secret.' }) clientSecret?: string;
  @ApiPropertyOptional({ description: 'Apple: the team ID (iss of the client-secret JWT).' }) teamID?: string;
  @ApiPropertyOptional({ description: 'Apple: the key ID (kid of the client-secret JWT).' }) keyID?: string;
  @ApiPropertyOptional({ description: 'Write-only PEM private key: Apple (EC P-256) or a GitHub App (RSA); empty or absent keeps the stored key.' })
  privateKeyPEM?: string;
  @ApiPropertyOptional({ description: "The service's callback registered at the provider: https://<service>/api/v1/oauth/{provider}/callback." }) redirectURI?: string;
  @ApiPropertyOptional({ description: 'Generic OpenID provider (oidc): the issuer URL (discovery at /.well-known/openid-configuration).' }) issuerURL?: string;
  @ApiPropertyOptional({ description: 'GitHub App: the app ID (iss of the app JWT that replaces the client secret).' }) appID?: string;
}

export class UpdateOAuthProvidersDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/OAuthProviderAdminConfig' },
    description: 'Provider name (google, github, apple, oidc) → configuration. Providers absent from the map are unchanged.',
  })
  @IsObject()
  providers: Record<string, OAuthProviderAdminConfig>;
}

/** The Test of a provider: its stored configuration, or an update's entry for it merged over that (not saved). */
export class TestOAuthProviderDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/OAuthProviderAdminConfig' },
    description: 'As in the update: provider name → configuration, merged over the stored one for this test only (nothing is saved). Only the tested provider may be named; absent tests the stored configuration.',
  })
  @IsOptional()
  @IsObject()
  providers?: Record<string, OAuthProviderAdminConfig>;
}

export class ProviderCheckResponse {
  @ApiProperty({ description: 'What was checked: configuration, discovery, issuer, endpoints, jwks (OpenID providers); configuration, token_endpoint, api (GitHub).', example: 'discovery' })
  name: string;
  @ApiProperty() ok: boolean;
  @ApiProperty({ description: 'What was found, in an administrator\'s words (an address, an HTTP status, what is missing); never a secret.', example: 'https://idp.example/.well-known/openid-configuration answered HTTP 404' })
  detail: string;
}

export class ProviderTestResponse {
  @ApiProperty({ description: 'Whether every check passed: a sign-in with this configuration can reach the provider.' }) ok: boolean;
  @ApiProperty({ type: [ProviderCheckResponse], description: 'The checks in the order run; a check that cannot run after a failed one is not listed.' })
  checks: ProviderCheckResponse[];
}

export class StatusResponse {
  @ApiProperty({ example: 'OK' }) status: string;
  @ApiProperty() message: string;
}

/** A provider's configuration as the admin UI reads it: secrets replaced by whether one is stored. */
export class OAuthProviderView {
  @ApiProperty() enabled: boolean;
  @ApiProperty() clientID: string;
  @ApiProperty() clientSecretSet: boolean;
  @ApiProperty() teamID: string;
  @ApiProperty() keyID: string;
  @ApiProperty() privateKeyPEMSet: boolean;
  @ApiProperty() redirectURI: string;
  @ApiProperty() issuerURL: string;
  @ApiProperty() appID: string;
}

export class OAuthProvidersResponse {
  @ApiProperty({ type: 'object', additionalProperties: { $ref: '#/components/schemas/OAuthProviderView' }, description: 'The configured providers.' })
  providers: Record<string, OAuthProviderView>;
}

export class OAuthInitiateDto {
  @ApiPropertyOptional({ description: "The sector; omitted means the platform tenant's default sector." })
  @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
  @ApiProperty({ description: "Where the browser returns after the provider (the client's page); its origin must be one of the sector's allowedOrigins." })
  @IsString() @IsNotEmpty() @MaxLength(2048) redirectURI: string;
}

export class OAuthInitiateResponse {
  @ApiProperty({ description: "Send the browser here: the provider's authorization endpoint." }) authURL: string;
  @ApiProperty({ description: 'The flow (a second factor continues it). Not the OAuth state, and never enough to collect the result.' }) transactionID: string;
  @ApiProperty({
    description: 'Shown once: keep it in the browser that started the flow (e.g. sessionStorage). POST /api/v1/oauth/token needs it with the code the return brings.',
  })
  verifier: string;
}

/** Linking a provider from the account page. */
export class LinkIdentityDto {
  @ApiProperty({ description: "Where the browser returns after the provider (the account page); its origin must be one of the sector's allowedOrigins." })
  @IsString() @IsNotEmpty() @MaxLength(2048) redirectURI: string;
  @ApiPropertyOptional({ description: 'The current password, when the sign-in is older than 5 minutes (step-up).' })
  @IsOptional() @IsString() @MaxLength(1024) currentPassword?: string;
}

export class OAuthCallbackQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(4096) code?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) state?: string;
  @ApiPropertyOptional({ description: 'RFC 9207 issuer identification, when the provider sends it.' }) @IsOptional() @IsString() @MaxLength(2048) iss?: string;
  @ApiPropertyOptional({ description: "The provider's error (the user declined, …)." }) @IsOptional() @IsString() @MaxLength(256) error?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) error_description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) error_uri?: string;
  @ApiPropertyOptional({ description: 'Scopes granted (Google sends them).' }) @IsOptional() @IsString() @MaxLength(4096) scope?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(256) authuser?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(256) prompt?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(256) hd?: string;
}

export class OAuthTokenDto {
  @ApiProperty({ description: 'The single-use code the callback redirect carried (`?code=`).' }) @IsString() @IsNotEmpty() @MaxLength(128) code: string;
  @ApiProperty({ description: 'The verifier initiate answered to the browser that started the flow.' }) @IsString() @IsNotEmpty() @MaxLength(128) verifier: string;
}

export class LinkedIdentityResponse {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['google', 'github', 'apple', 'oidc'] }) provider: string;
  @ApiProperty({ description: 'The issuer of the identity (with the subject, the key of the link).' }) issuer: string;
  @ApiProperty({ description: "The provider's subject." }) subject: string;
  @ApiProperty() email: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds.' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds of the last sign-in with it; "0" when never.' }) lastUsedAt: string;
}

export class ListLinkedIdentitiesResponse {
  @ApiProperty({ type: [LinkedIdentityResponse] }) identities: LinkedIdentityResponse[];
}

export class LinkedIdentityIdResponse {
  @ApiProperty() id: string;
}

/** What the exchange answers for a link flow (started from the account page): nobody is signed in. */
export class OAuthLinkResultResponse {
  @ApiProperty({ example: true }) linked: boolean;
  @ApiProperty({ type: LinkedIdentityResponse }) identity: LinkedIdentityResponse;
}
