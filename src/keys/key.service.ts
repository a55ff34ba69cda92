import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { TenantDb } from '../tenancy/tenant-db';
import { createPrivateKey, createPublicKey, generateKeyPair, KeyObject, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { EntityManager } from 'typeorm';
import { SecretBox } from '../common/crypto/secret-box';
import { DirectoryRepository } from '../tenancy/directory.repository';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { SigningKeyEntity } from '../tenancy/signing-key.entity';
import { DirectoryChanges } from '../tenancy/directory-changes';

const generateKeyPairAsync = promisify(generateKeyPair);

export const SIGNING_ALG = 'ES256';
/** Seal purpose of the tenants' private signing keys. */
export const SIGNING_KEY_SEAL = 'signing-key';
const SEAL_PURPOSE = SIGNING_KEY_SEAL;
const REFRESH_MS = 15_000;
const UNKNOWN_KID_RELOAD_MS = 1_000;
/** Extra time a retired key stays published, covering instances that had not yet seen the rotation. */
const RETIRED_MARGIN_SECONDS = 300;

export interface PublicKeyEntry {
  kid: string;
  tenantId: string;
  key: KeyObject;
  jwk: Record<string, string>;
}

export interface Jwks {
  keys: Array<Record<string, string>>;
}

/**
 * Tenants' signing keys: generation (ES256, P-256), the private halves sealed with
 * MASTER_KEY at rest and cached decrypted in memory, the published JWK Set, and
 * rotation. Public keys are cached in memory and refreshed in the background, so
 * verifying a token costs no database work.
 */
@Injectable()
export class KeyService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Keys');
  private publicKeys = new Map<string, PublicKeyEntry>();
  private jwksCache: Jwks = { keys: [] };
  private readonly privateKeys = new Map<string, KeyObject>();
  private readonly ttlSeen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private lastReload = 0;
  private reloading: Promise<void> | undefined;

  constructor(
    private readonly box: SecretBox,
    private readonly directoryRepo: DirectoryRepository,
    private readonly directory: TenantDirectory,
    changes: DirectoryChanges,
    private readonly audit: AuditService,
  ) {
    // A key stored by any instance (provisioning, rotation) is published here as soon as it commits.
    changes.subscribe((what) => {
      if (what === 'keys' || what === '*') void this.reload().catch((e: Error) => this.logger.warn(`Key refresh failed: ${e.message}`));
    });
  }

  async onModuleInit(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.reload().catch((e: Error) => this.logger.warn(`Key refresh failed: ${e.message}`)), REFRESH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** A new key pair for a tenant, as the row to store (the private half sealed). */
  async generate(tenantId: string): Promise<SigningKeyEntity> {
    const { publicKey, privateKey } = await generateKeyPairAsync('ec', { namedCurve: 'P-256' });
    const kid = randomBytes(12).toString('base64url');
    const row = new SigningKeyEntity();
    row.kid = kid;
    row.tenantId = tenantId;
    row.alg = SIGNING_ALG;
    row.publicJwk = { ...(publicKey.export({ format: 'jwk' }) as Record<string, string>), kid, alg: SIGNING_ALG, use: 'sig' };
    row.privateKeySealed = this.box.seal(SEAL_PURPOSE, privateKey.export({ format: 'pem', type: 'pkcs8' }));
    row.maxTokenTtlSeconds = 0;
    row.retiredAt = null;
    this.privateKeys.set(kid, privateKey);
    return row;
  }

  /** Reloads the published keys: current ones, and retired ones until their last token expires. */
  async reload(): Promise<void> {
    if (this.reloading) return this.reloading;
    this.reloading = (async () => {
      const rows = await this.directoryRepo.publishedSigningKeys(RETIRED_MARGIN_SECONDS);
      const next = new Map<string, PublicKeyEntry>();
      for (const row of rows) {
        const previous = this.publicKeys.get(row.kid);
        next.set(row.kid, previous ?? { kid: row.kid, tenantId: row.tenantId, jwk: row.publicJwk, key: createPublicKey({ key: row.publicJwk, format: 'jwk' }) });
      }
      this.publicKeys = next;
      this.jwksCache = { keys: rows.map((r) => r.publicJwk) };
      this.lastReload = Date.now();
    })().finally(() => (this.reloading = undefined));
    return this.reloading;
  }

  jwks(): Jwks {
    return this.jwksCache;
  }

  /** Is `kid` in the published set now (cheap, in memory)? */
  isPublished(kid: string): boolean {
    return this.publicKeys.has(kid);
  }

  /**
   * The public key of `kid`. An unknown kid (a key another instance made moments
   * ago, before its change notice arrived) reloads the keys — at most one reload a
   * second, shared by every request that waits for it, so bogus kids cannot turn
   * into a query each.
   */
  async publicKey(kid: string): Promise<PublicKeyEntry | undefined> {
    const hit = this.publicKeys.get(kid);
    if (hit) return hit;
    const wait = UNKNOWN_KID_RELOAD_MS - (Date.now() - this.lastReload);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const now = this.publicKeys.get(kid);
    if (now) return now;
    if (Date.now() - this.lastReload >= UNKNOWN_KID_RELOAD_MS) await this.reload();
    return this.publicKeys.get(kid);
  }

  /** The private key of `kid`, unsealed once and kept in memory. */
  async privateKey(kid: string): Promise<KeyObject> {
    const cached = this.privateKeys.get(kid);
    if (cached) return cached;
    const row = await this.directoryRepo.signingKey(kid);
    const key = createPrivateKey(this.box.open(SEAL_PURPOSE, row.privateKeySealed));
    this.privateKeys.set(kid, key);
    return key;
  }

  /**
   * Records that a token of `ttlSeconds` was signed with `kid`, so that the key
   * stays published long enough after a rotation. One write per higher value.
   */
  async noteTokenTtl(kid: string, ttlSeconds: number): Promise<void> {
    if ((this.ttlSeen.get(kid) ?? 0) >= ttlSeconds) return;
    await this.directoryRepo.raiseMaxTokenTtl(kid, ttlSeconds);
    this.ttlSeen.set(kid, ttlSeconds);
  }

  /** Stores a new key for the tenant inside the caller's transaction. */
  async insert(em: EntityManager, row: SigningKeyEntity): Promise<void> {
    await this.directoryRepo.insertSigningKey(em, row);
  }

  /**
   * Rotates a tenant's signing key: a new key becomes current, the old one is
   * retired and stays published until every token it signed has expired.
   */
  async rotate(tenantId: string): Promise<{ oldKid: string; newKid: string }> {
    const row = await this.generate(tenantId);
    const platform = await this.directory.platform();
    // A platform event: recorded in the platform tenant's audit table (the main database), in the rotation's transaction.
    const result = await this.directoryRepo.rotateSigningKey(tenantId, row, (em, rotated) =>
      this.audit.record(new TenantDb(platform, em), {
        type: 'signing_key.rotated',
        sectorId: platform.rootSectorId,
        target: { kind: 'tenant', id: tenantId },
        details: { oldKid: rotated.oldKid, newKid: rotated.newKid },
      }),
    );
    this.directory.forget(tenantId); // this instance signs with the new key at once (the cached tenant row holds the kid)
    await this.reload();
    return result;
  }
}
