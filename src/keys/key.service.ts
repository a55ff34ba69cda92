import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { TenantDb } from '../tenancy/tenant-db';
import { createPrivateKey, createPublicKey, generateKeyPair, KeyObject, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { EntityManager } from 'typeorm';
import { SecretBox } from '../common/crypto/secret-box';
import { DirectoryRepository } from '../tenancy/directory.repository';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { PublishedKey, RotatedKeys, SigningAlg, SigningKeyEntity } from '../tenancy/signing-key.entity';
import { TenantEntity } from '../tenancy/tenant.entity';
import { DirectoryChanges, KEYS_CHANGE } from '../tenancy/directory-changes';
import { recentlyUsed, setBounded } from '../common/bounded-map';

const generateKeyPairAsync = promisify(generateKeyPair);

/** The algorithm of the sign-in API's access tokens (every tenant's EC key). */
export const SIGNING_ALG: SigningAlg = 'ES256';
const RSA_MODULUS_BITS = 2048;
/** Seal purpose of the tenants' private signing keys. */
export const SIGNING_KEY_SEAL = 'signing-key';
const SEAL_PURPOSE = SIGNING_KEY_SEAL;
const REFRESH_MS = 15_000;
const UNKNOWN_KID_RELOAD_MS = 1_000;
/**
 * Private keys kept unsealed in memory, the most recently used: a key not among
 * them is read and unsealed again when it next signs (a query and ~0.1 ms), so
 * memory does not grow with the number of tenants an instance has signed for.
 */
const PRIVATE_KEYS_KEPT = 1_000;
/**
 * Public keys kept as key objects (OpenSSL's form, ~3 KB each), the most recently
 * used; every published key stays in memory as its JWK (a few hundred bytes) and is
 * made a key object again in ~20 µs when a token it signed is verified the first time.
 */
const VERIFICATION_KEYS_KEPT = 2_000;
/** Extra time a retired key stays published, covering instances that had not yet seen the rotation. */
const RETIRED_MARGIN_SECONDS = 300;

export interface PublicKeyEntry {
  kid: string;
  tenantId: string;
  jwk: Record<string, string>;
}

export interface Jwks {
  keys: Array<Record<string, string>>;
}

/** A private JWK for a signer that takes JSON Web Keys (the OpenID Provider). */
export type PrivateJwk = Record<string, string | string[]>;

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
  private jwksCache: Jwks | undefined;
  private readonly privateKeys = new Map<string, KeyObject>();
  private readonly verificationKeys = new Map<string, KeyObject>();
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
      else if (what.startsWith(KEYS_CHANGE)) void this.reloadTenant(what.slice(KEYS_CHANGE.length)).catch((e: Error) => this.logger.warn(`Key refresh failed: ${e.message}`));
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
  async generate(tenantId: string, alg: SigningAlg = SIGNING_ALG): Promise<SigningKeyEntity> {
    const { publicKey, privateKey } =
      alg === 'RS256' ? await generateKeyPairAsync('rsa', { modulusLength: RSA_MODULUS_BITS }) : await generateKeyPairAsync('ec', { namedCurve: 'P-256' });
    const kid = randomBytes(12).toString('base64url');
    const row = new SigningKeyEntity();
    row.kid = kid;
    row.tenantId = tenantId;
    row.alg = alg;
    row.publicJwk = { ...(publicKey.export({ format: 'jwk' }) as Record<string, string>), kid, alg, use: 'sig' };
    row.privateKeySealed = this.box.seal(SEAL_PURPOSE, privateKey.export({ format: 'pem', type: 'pkcs8' }));
    row.maxTokenTtlSeconds = 0;
    row.retiredAt = null;
    setBounded(this.privateKeys, kid, privateKey, PRIVATE_KEYS_KEPT);
    return row;
  }

  /** Reloads the published keys: current ones, and retired ones until their last token expires. */
  async reload(): Promise<void> {
    if (this.reloading) return this.reloading;
    this.reloading = (async () => {
      const rows = await this.directoryRepo.publishedSigningKeys(RETIRED_MARGIN_SECONDS);
      const next = new Map<string, PublicKeyEntry>();
      for (const row of rows) next.set(row.kid, this.entryOf(row));
      this.publish(next);
      this.lastReload = Date.now();
    })().finally(() => (this.reloading = undefined));
    return this.reloading;
  }

  /**
   * Reloads one tenant's published keys (a key it stored, announced by any instance),
   * after a full reload under way: that one may have read the keys before the new
   * one committed, and must not publish last.
   */
  private async reloadTenant(tenantId: string): Promise<void> {
    await this.reloading?.catch(() => undefined);
    const rows = await this.directoryRepo.publishedSigningKeys(RETIRED_MARGIN_SECONDS, tenantId);
    const next = new Map<string, PublicKeyEntry>();
    for (const [kid, entry] of this.publicKeys) if (entry.tenantId !== tenantId) next.set(kid, entry);
    for (const row of rows) next.set(row.kid, this.entryOf(row));
    this.publish(next);
  }

  private entryOf(row: PublishedKey): PublicKeyEntry {
    return this.publicKeys.get(row.kid) ?? { kid: row.kid, tenantId: row.tenantId, jwk: row.publicJwk };
  }

  private publish(keys: Map<string, PublicKeyEntry>): void {
    this.publicKeys = keys;
    this.jwksCache = undefined;
  }

  /** Every tenant's published public keys (built again only after the keys changed). */
  jwks(): Jwks {
    this.jwksCache ??= { keys: Array.from(this.publicKeys.values(), (entry) => entry.jwk) };
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

  /** The key object that verifies what `entry` signed, among the VERIFICATION_KEYS_KEPT most recently used. */
  verificationKey(entry: PublicKeyEntry): KeyObject {
    return recentlyUsed(this.verificationKeys, entry.kid, VERIFICATION_KEYS_KEPT, () => createPublicKey({ key: entry.jwk, format: 'jwk' }));
  }

  /** The private key of `kid`, unsealed and kept in memory among the PRIVATE_KEYS_KEPT most recently used. */
  async privateKey(kid: string): Promise<KeyObject> {
    const cached = recentlyUsed(this.privateKeys, kid, PRIVATE_KEYS_KEPT);
    if (cached) return cached;
    const row = await this.directoryRepo.signingKey(kid);
    return recentlyUsed(this.privateKeys, kid, PRIVATE_KEYS_KEPT, () => createPrivateKey(this.box.open(SEAL_PURPOSE, row.privateKeySealed)));
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
   * The tenant's RSA key (RS256), made the first time it is asked for: OpenID
   * Discovery requires RS256 for ID tokens. Two instances asking at once agree on
   * one key (the directory keeps the first; the other is discarded unstored).
   */
  async ensureRsaKey(tenant: TenantEntity): Promise<string> {
    if (tenant.rsaKid) return tenant.rsaKid;
    const row = await this.generate(tenant.id, 'RS256');
    const kid = await this.directoryRepo.addRsaKey(tenant.id, row);
    if (kid !== row.kid) this.privateKeys.delete(row.kid);
    this.directory.forget(tenant.id);
    await this.reload();
    return kid;
  }

  /**
   * The tenant's keys as private JWKs, for a signer that takes a key set: the
   * current EC and RSA keys first (they sign), then its retired keys still
   * published (`key_ops: ["verify"]`, so they never sign again but stay in the set
   * a relying party verifies with).
   */
  async tenantSigningJwks(tenant: TenantEntity): Promise<PrivateJwk[]> {
    const current = [tenant.kid, ...(tenant.rsaKid ? [tenant.rsaKid] : [])];
    const retired = [...this.publicKeys.values()].filter((k) => k.tenantId === tenant.id && !current.includes(k.kid)).map((k) => k.kid);
    const jwk = async (kid: string, signs: boolean): Promise<PrivateJwk> => {
      const published = (await this.publicKey(kid))?.jwk;
      if (!published) throw new Error(`Signing key ${kid} of tenant ${tenant.id} is not published`);
      const key = (await this.privateKey(kid)).export({ format: 'jwk' }) as Record<string, string>;
      return { ...key, kid, alg: published.alg, use: 'sig', ...(signs ? {} : { key_ops: ['verify'] }) };
    };
    return Promise.all([...current.map((kid) => jwk(kid, true)), ...retired.map((kid) => jwk(kid, false))]);
  }

  /**
   * Rotates a tenant's signing keys: a new key of each algorithm the tenant uses
   * becomes current, the old ones are retired and stay published until every token
   * they signed has expired.
   */
  async rotate(tenantId: string): Promise<RotatedKeys> {
    const platform = await this.directory.platform();
    // A platform event: recorded in the platform tenant's audit table (the main database), in the rotation's transaction.
    const result = await this.directoryRepo.rotateSigningKeys(
      tenantId,
      (alg) => this.generate(tenantId, alg),
      (em, rotated) =>
        this.audit.record(new TenantDb(platform, em), {
          type: 'signing_key.rotated',
          sectorId: platform.rootSectorId,
          target: { kind: 'tenant', id: tenantId },
          details: { ...rotated },
        }),
    );
    this.directory.forget(tenantId); // this instance signs with the new key at once (the cached tenant row holds the kid)
    await this.reload();
    return result;
  }
}
