import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The names of the social-login providers a sector can configure. */
export const PROVIDER_NAMES = ['google', 'github', 'apple', 'oidc'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(value);
}

/**
 * One social-login provider of a sector. The client secret and the private key
 * (Apple's ES256 key, a GitHub App's RSA key) are sealed with the master key
 * (purpose `oauth-provider-secret`) and never leave the server.
 */
@Entity({ name: 'oauth_providers' })
export class OAuthProviderEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('text') provider: string;
  @Column('boolean') enabled: boolean;
  @Column('text', { name: 'client_id' }) clientId: string;
  @Column('text', { name: 'client_secret_sealed', nullable: true }) clientSecretSealed: string | null;
  @Column('text', { name: 'team_id' }) teamId: string;
  @Column('text', { name: 'key_id' }) keyId: string;
  @Column('text', { name: 'private_key_sealed', nullable: true }) privateKeySealed: string | null;
  @Column('text', { name: 'redirect_uri' }) redirectUri: string;
  @Column('text', { name: 'issuer_url' }) issuerUrl: string;
  @Column('text', { name: 'app_id' }) appId: string;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
