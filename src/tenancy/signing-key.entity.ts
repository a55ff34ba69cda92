import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** The algorithms of tenants' signing keys: EC P-256 (every tenant) and RSA 2048 (tenants with OpenID Providers). */
export type SigningAlg = 'ES256' | 'RS256';

/** What a rotation replaced: the EC key, and the RSA key when the tenant has one. */
export interface RotatedKeys {
  oldKid: string;
  newKid: string;
  oldRsaKid?: string;
  newRsaKid?: string;
}

/** What is published of a signing key: its id, tenant and public half. */
export type PublishedKey = Pick<SigningKeyEntity, 'kid' | 'tenantId' | 'publicJwk'>;

/** A tenant's signing key pair; the private half sealed with MASTER_KEY. */
@Entity({ name: 'signing_keys' })
export class SigningKeyEntity {
  @PrimaryColumn('text') kid: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId: string;
  @Column('text') alg: string;
  @Column('jsonb', { name: 'public_jwk' }) publicJwk: Record<string, string>;
  @Column('text', { name: 'private_key_sealed' }) privateKeySealed: string;
  /** The longest token lifetime ever signed with this key: how long it stays published after retirement. */
  @Column('integer', { name: 'max_token_ttl_seconds', default: 0 }) maxTokenTtlSeconds: number;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'retired_at', nullable: true }) retiredAt: Date | null;
}
