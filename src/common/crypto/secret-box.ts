import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Authenticated encryption of secrets at rest (signing keys, provider secrets,
 * OTP secrets): AES-256-GCM under a key derived from MASTER_KEY with HKDF, one
 * derived key per purpose. Format: `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly masterKey: string) {}

  private keyFor(purpose: string): Buffer {
    let key = this.keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', Buffer.from(this.masterKey, 'utf8'), Buffer.alloc(0), `iam:${purpose}`, 32));
      this.keys.set(purpose, key);
    }
    return key;
  }

  seal(purpose: string, plaintext: string | Buffer): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keyFor(purpose), iv);
    cipher.setAAD(Buffer.from(purpose));
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  /** A keyed MAC (HMAC-SHA256, base64url) under the purpose's derived key: for short codes that a plain hash would not protect. */
  mac(purpose: string, data: string): string {
    return createHmac('sha256', this.keyFor(purpose)).update(data).digest('base64url');
  }

  /** Constant-time comparison of a MAC with the one `data` would have. */
  macEquals(purpose: string, data: string, expected: string): boolean {
    const actual = Buffer.from(this.mac(purpose, data));
    const wanted = Buffer.from(expected);
    return actual.length === wanted.length && timingSafeEqual(actual, wanted);
  }

  open(purpose: string, sealed: string): Buffer {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('Unsupported sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.keyFor(purpose), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]);
  }
}

/** A URL-safe random identifier carrying `bytes` bytes of CSPRNG output. */
export function randomId(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * How bearer secrets with 256 random bits (API tokens, invitation tokens) are
 * stored: SHA-256, base64url. No salt or slow hash is needed at that entropy, and
 * the lookup stays one indexed equality.
 */
export function hashSecretToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
