import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../access/decorators';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SIGNING_ALG } from './key.service';

/** The OpenID Provider metadata a backend's stock JWT tooling reads to verify our access tokens. */
export class DiscoveryResponse {
  @ApiProperty({ description: 'The `iss` of every access token (PUBLIC_URL); the same for every tenant.' }) issuer: string;
  @ApiProperty({ description: 'The JWK Set of every tenant’s public signing keys.' }) jwks_uri: string;
  @ApiProperty({ description: 'Token introspection (a bearer credential of the token’s tenant is required).' }) introspection_endpoint: string;
  @ApiProperty({ type: [String] }) introspection_endpoint_auth_methods_supported: string[];
  @ApiProperty({ type: [String] }) id_token_signing_alg_values_supported: string[];
  @ApiProperty({ type: [String] }) token_endpoint_auth_signing_alg_values_supported: string[];
  @ApiProperty({ type: [String] }) subject_types_supported: string[];
  @ApiProperty({ type: [String] }) response_types_supported: string[];
  @ApiProperty({ type: [String] }) grant_types_supported: string[];
  @ApiProperty({ type: [String], description: 'Claims access tokens carry.' }) claims_supported: string[];
  @ApiProperty() service_documentation: string;
}

/**
 * `/.well-known/openid-configuration`: where standard token tooling finds the
 * issuer of the sign-in API's access tokens and the keys. That issuer is not an
 * OAuth authorization server (its sign-in is its own API), so no authorization or
 * token endpoint is advertised here; what a backend needs to verify an access token
 * offline is the issuer, the JWK Set and the algorithm. The OpenID Providers apps
 * sign users in through are the sectors' own issuers, `/oidc/{tenant}/{sector}`,
 * each with its own discovery document (src/oidc).
 */
@ApiTags('Keys')
@Controller()
export class DiscoveryController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Public()
  @Get('.well-known/openid-configuration')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOkResponse({ type: DiscoveryResponse, description: 'OpenID Provider metadata: issuer, JWK Set, algorithms.' })
  discovery(): DiscoveryResponse {
    const base = this.config.publicUrl;
    return {
      issuer: base,
      jwks_uri: `${base}/.well-known/jwks.json`,
      introspection_endpoint: `${base}/api/v1/introspect`,
      introspection_endpoint_auth_methods_supported: ['bearer'],
      id_token_signing_alg_values_supported: [SIGNING_ALG],
      token_endpoint_auth_signing_alg_values_supported: [SIGNING_ALG],
      subject_types_supported: ['public'],
      response_types_supported: [],
      grant_types_supported: [],
      claims_supported: ['sub', 'iss', 'iat', 'exp', 'jti', 'tenantID', 'sectorID', 'username', 'isAdmin', 'roles', 'permissions'],
      service_documentation: `${base}/api/docs`,
    };
  }
}
