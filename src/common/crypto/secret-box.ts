import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** One configured master key: its id (non-secret fingerprint) and its derived keys, one per purpose. */
interface MasterKey {
  kid: string;
  secret: Buffer;
  derived: Map<string, Buffer>;
}

/**
 * The id of a master key: the first 8 base64url characters (48 bits) of
 * HMAC-SHA256(masterKey, "iam:key-id"). Not secret — it names the key a sealed
 * value needs without revealing anything usable about the key.
 */
export function masterKeyId(masterKey: string): string {
  return createHmac('sha256', Buffer.from(masterKey, 'utf8')).update('iam:key-id').digest('base64url').slice(0, 8);
}

/**
 * Authenticated encryption of secrets at rest (signing keys, provider secrets,
 * OTP secrets): AES-256-GCM under a key derived from a master key with HKDF, one
 * derived key per purpose; the purpose is the additional authenticated data.
 *
 * Several master keys may be configured, newest first (MASTER_KEYS, or MASTER_KEY
 * + MASTER_KEY_PREVIOUS). `seal` always uses the newest; `open` finds the key by
 * the id the sealed value carries. Format: `v2.<kid>.<iv>.<tag>.<ciphertext>`
 * (base64url). Values of the older format `v1.<iv>.<tag>.<ciphertext>` (sealed
 * when there was a single MASTER_KEY, no key id) still open: every configured key
 * is tried, newest first. `reseal` moves a value to the newest key (see
 * `npm run secrets:reseal`).
 *
 * MACs (`mac`, `macEquals`: one-time codes that live minutes) use the newest key
 * only, so putting a new key first invalidates the codes in flight.
 */
export class SecretBox {
  private readonly masterKeys: MasterKey[];

  /** `masterKeys`: newest first (a single key is accepted as a string). */
  constructor(masterKeys: string | readonly string[]) {
    const list = typeof masterKeys === 'string' ? [masterKeys] : [...masterKeys];
    if (list.length === 0) throw new Error('SecretBox needs at least one master key');
    this.masterKeys = list.map((key) => ({ kid: masterKeyId(key), secret: Buffer.from(key, 'utf8'), derived: new Map<string, Buffer>() }));
    const kids = new Set(this.masterKeys.map((k) => k.kid));
    if (kids.size !== this.masterKeys.length) throw new Error('SecretBox: the same master key is configured twice');
  }

  /** The id of the newest master key, the one `seal` and `mac` use. */
  get keyId(): string {
    return this.masterKeys[0].kid;
  }

  /** The ids of every configured master key, newest first. */
  get keyIds(): string[] {
    return this.masterKeys.map((k) => k.kid);
  }

  private keyFor(master: MasterKey, purpose: string): Buffer {
    let key = master.derived.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', master.secret, Buffer.alloc(0), `iam:${purpose}`, 32));
      master.derived.set(purpose, key);
    }
    return key;
  }

  seal(purpose: string, plaintext: string | Buffer): string {
    const master = this.masterKeys[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keyFor(master, purpose), iv);
    cipher.setAAD(Buffer.from(purpose));
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return ['v2', master.kid, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  /** A keyed MAC (HMAC-SHA256, base64url) under the purpose's key derived from the newest master key: for short codes that a plain hash would not protect. */
  mac(purpose: string, data: string): string {
    return createHmac('sha256', this.keyFor(this.masterKeys[0], purpose)).update(data).digest('base64url');
  }

  /** Constant-time comparison of a MAC with the one `data` would have. */
  macEquals(purpose: string, data: string, expected: string): boolean {
    const actual = Buffer.from(this.mac(purpose, data));
    const wanted = Buffer.from(expected);
    return actual.length === wanted.length && timingSafeEqual(actual, wanted);
  }

  /**
   * The plaintext of a sealed value, under whichever configured master key sealed
   * it. Fails (without revealing anything) on a tampered value, another purpose, or
   * a key that is not configured — that error names the missing key's id.
   */
  open(purpose: string, sealed: string): Buffer {
    const parts = sealed.split('.');
    if (parts[0] === 'v2' && parts.length === 5) {
      const [, kid, iv, tag, ct] = parts;
      const master = this.masterKeys.find((k) => k.kid === kid);
      if (!master) {
        throw new Error(
          `Sealed secret is under master key id "${kid}", which is not configured (configured: ${this.keyIds.join(', ')}); ` +
            'add that key to MASTER_KEYS (or MASTER_KEY_PREVIOUS)',
        );
      }
      return this.decrypt(master, purpose, iv, tag, ct);
    }
    if (parts[0] === 'v1' && parts.length === 4) {
      const [, iv, tag, ct] = parts;
      for (const master of this.masterKeys) {
        try {
          return this.decrypt(master, purpose, iv, tag, ct);
        } catch {
          // v1 carries no key id: try the next configured key.
        }
      }
      throw new Error(`Sealed secret (v1, no key id) does not open under any configured master key (${this.keyIds.join(', ')}) for purpose "${purpose}"`);
    }
    throw new Error('Unsupported sealed secret format');
  }

  /** What every value sealed under the newest master key starts with: `v2.<kid>.` (for counting in SQL). */
  get currentPrefix(): string {
    return `v2.${this.keyId}.`;
  }

  /** Is `sealed` in the current format under the newest master key (nothing for `reseal` to do)? */
  isCurrent(sealed: string): boolean {
    return sealed.startsWith(this.currentPrefix) && sealed.split('.').length === 5;
  }

  /** `sealed` opened under whichever configured key sealed it and sealed again under the newest one. */
  reseal(purpose: string, sealed: string): string {
    const plaintext = this.open(purpose, sealed);
    try {
      return this.seal(purpose, plaintext);
    } finally {
      plaintext.fill(0);
    }
  }

  private decrypt(master: MasterKey, purpose: string, iv: string, tag: string, ct: string): Buffer {
    if (!iv || !tag) throw new Error('Unsupported sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.keyFor(master, purpose), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]);
    } catch {
      throw new Error(`Sealed secret does not open under master key id "${master.kid}" for purpose "${purpose}" (tampered, or sealed for another purpose)`);
    }
  }
}

/**
 * How bearer secrets with 256 random bits (API tokens, invitation tokens) are
 * stored: SHA-256, base64url. No salt or slow hash is needed at that entropy, and
 * the lookup stays one indexed equality.
 */
export function hashSecretToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
