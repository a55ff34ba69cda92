import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type TenantStorage = 'main' | 'pooled' | 'schema';

/** A tenant in the directory of the main database. */
@Entity({ name: 'tenants' })
export class TenantEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('text') slug: string;
  @Column('text') name: string;
  @Column('boolean', { name: 'is_platform', default: false }) isPlatform: boolean;
  /** Where its data lives: the main database (platform), its own database, or a schema of the main database. */
  @Column('text') storage: TenantStorage;
  @Column('text', { name: 'database_name', nullable: true }) databaseName: string | null;
  @Column('text', { name: 'schema_name', nullable: true }) schemaName: string | null;
  /** The server its database is on (TENANT_DATABASE_SERVERS' name); null: the main database's server. */
  @Column('text', { name: 'database_server', nullable: true }) databaseServer: string | null;
  /** The current EC signing key (ES256): the sign-in API's access tokens, and ID tokens that ask for ES256. */
  @Column('text') kid: string;
  /** The current RSA signing key (RS256) of its OpenID Providers; null until a sector first acts as one. */
  @Column('text', { name: 'rsa_kid', nullable: true }) rsaKid: string | null;
  @Column('uuid', { name: 'root_sector_id' }) rootSectorId: string;
  @Column('text', { name: 'schema_version', default: '' }) schemaVersion: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/** Where a tenant's tables live. */
export interface TenantLocation {
  storage: TenantStorage;
  databaseName: string | null;
  schemaName: string | null;
  /** The server of a pooled tenant's database; null (or absent) is the main database's server. */
  databaseServer?: string | null;
}
