import { IsBoolean, IsOptional } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class OidcInteractionClient {
  @ApiProperty({ description: 'The app’s client_id at the issuer.' }) clientID: string;
  @ApiProperty({ description: 'The app’s registered name (its client_id when it registered none).' }) clientName: string;
  @ApiPropertyOptional() logoURI?: string;
  @ApiPropertyOptional() clientURI?: string;
  @ApiPropertyOptional() policyURI?: string;
  @ApiPropertyOptional() tosURI?: string;
  @ApiProperty({ description: 'Registered with an admin credential: its users are never asked for consent.' }) firstParty: boolean;
}

/** What the sign-in page needs to know of an OpenID Provider sign-in request. */
export class OidcInteractionResponse {
  @ApiProperty() interactionID: string;
  @ApiProperty({ format: 'uuid', description: 'The issuer’s sector: the user signs in to it.' }) sectorID: string;
  @ApiProperty({ type: OidcInteractionClient }) client: OidcInteractionClient;
  @ApiProperty({ type: [String], description: 'The scopes the app asks for.' }) scopes: string[];
  @ApiProperty({ enum: ['login', 'consent'], description: 'What the provider waits for.' }) prompt: string;
  @ApiProperty({ type: [String], description: 'Why (the provider’s reasons, such as `no_session`, `login_prompt`, `max_age`).' }) reasons: string[];
  @ApiPropertyOptional({ description: 'The app’s `login_hint`.' }) loginHint?: string;
  @ApiPropertyOptional({ description: 'The app’s `max_age` in seconds: the sign-in must be at most this old.' }) maxAge?: number;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
}

export class CompleteOidcInteractionResponse {
  @ApiProperty({ description: 'Where the browser goes next: the provider, which answers the app’s redirect URI.' }) redirectTo: string;
}

/** How the user answers an app's sign-in request. */
export class CompleteOidcInteractionDto {
  @ApiPropertyOptional({
    description:
      'The user agrees to what a third-party app asks (its scopes and claims), after the sign-in page showed it. Without it, a request that needs consent answers FAILED_PRECONDITION (OIDC_CONSENT_REQUIRED).',
  })
  @IsOptional()
  @IsBoolean()
  consent?: boolean;
}
