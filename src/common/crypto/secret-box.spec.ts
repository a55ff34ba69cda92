import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { masterKeyId, SecretBox } from './secret-box';

const OLD = 'old-master-key-0123456789abcdef0123456789';
const NEW = 'new-master-key-0123456789abcdef0123456789';
const OLDER = 'older-master-key-0123456789abcdef012345678';

/** A value in the v1 format exactly as the single-key SecretBox sealed it (no key id). */
function sealV1(masterKey: string, purpose: string, plaintext: string): string {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(masterKey, 'utf8'), Buffer.alloc(0), `iam:${purpose}`, 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(purpose));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

describe('SecretBox', () => {
  const box = new SecretBox('a-master-key-of-at-least-32-characters!!');

  it('round-trips a secret for the same purpose', () => {
    const sealed = box.seal('signing-key', 'top secret');
    expect(sealed).toMatch(/^v2\./);
    expect(sealed).not.toContain('top secret');
    expect(box.open('signing-key', sealed).toString()).toBe('top secret');
  });

  it('refuses to open under another purpose or another master key', () => {
    const sealed = box.seal('signing-key', 'x');
    expect(() => box.open('provider-secret', sealed)).toThrow();
    expect(() => new SecretBox('another-master-key-of-32-characters!!!').open('signing-key', sealed)).toThrow();
  });

  it('refuses a tampered ciphertext', () => {
    const sealed = box.seal('p', 'hello');
    const parts = sealed.split('.');
    parts[4] = Buffer.from('jello').toString('base64url');
    expect(() => box.open('p', parts.join('.'))).toThrow();
  });

  it('refuses a changed key id (it names the key, it does not authenticate around it)', () => {
    const two = new SecretBox([NEW, OLD]);
    const parts = two.seal('p', 'hello').split('.');
    parts[1] = masterKeyId(OLD);
    expect(() => two.open('p', parts.join('.'))).toThrow(/does not open under master key id/);
  });

  it('refuses unknown formats', () => {
    expect(() => box.open('p', 'v3.a.b.c.d')).toThrow(/Unsupported sealed secret format/);
    expect(() => box.open('p', 'v2.a.b.c')).toThrow(/Unsupported sealed secret format/);
    expect(() => box.open('p', 'garbage')).toThrow(/Unsupported sealed secret format/);
  });

  describe('key ids and rotation', () => {
    it('derives a short, stable, non-secret key id per master key', () => {
      expect(masterKeyId(NEW)).toMatch(/^[A-Za-z0-9_-]{8}$/);
      expect(masterKeyId(NEW)).toBe(masterKeyId(NEW));
      expect(masterKeyId(NEW)).not.toBe(masterKeyId(OLD));
      expect(NEW).not.toContain(masterKeyId(NEW));
      expect(new SecretBox([NEW, OLD]).keyId).toBe(masterKeyId(NEW));
      expect(new SecretBox([NEW, OLD]).keyIds).toEqual([masterKeyId(NEW), masterKeyId(OLD)]);
    });

    it('seals in v2 carrying the kid of the newest key', () => {
      const sealed = new SecretBox([NEW, OLD]).seal('totp-secret', 'JBSWY3DPEHPK3PXP');
      const [version, kid, iv, tag, ct] = sealed.split('.');
      expect(version).toBe('v2');
      expect(kid).toBe(masterKeyId(NEW));
      expect([iv, tag, ct].every((p) => /^[A-Za-z0-9_-]+$/.test(p))).toBe(true);
    });

    it('still opens v1 data sealed with the single MASTER_KEY, as current or as a previous key', () => {
      const v1 = sealV1(OLD, 'signing-key', 'pem');
      expect(new SecretBox(OLD).open('signing-key', v1).toString()).toBe('pem');
      expect(new SecretBox([NEW, OLD]).open('signing-key', v1).toString()).toBe('pem');
      expect(new SecretBox([NEW, OLDER, OLD]).open('signing-key', v1).toString()).toBe('pem');
      expect(() => new SecretBox([NEW]).open('signing-key', v1)).toThrow(/v1, no key id.*does not open under any configured master key/);
      expect(() => new SecretBox([NEW, OLD]).open('totp-secret', v1)).toThrow();
    });

    it('opens a secret sealed under an old key while that key is configured, and fails clearly naming its kid when it is not', () => {
      const sealed = new SecretBox(OLD).seal('totp-secret', 'secret');
      expect(new SecretBox([NEW, OLD]).open('totp-secret', sealed).toString()).toBe('secret');
      let error: Error | undefined;
      try {
        new SecretBox(NEW).open('totp-secret', sealed);
      } catch (err) {
        error = err as Error;
      }
      expect(error?.message).toContain(`master key id "${masterKeyId(OLD)}"`);
      expect(error?.message).toContain('not configured');
      expect(error?.message).toContain(masterKeyId(NEW));
      expect(error?.message).not.toContain(OLD);
      expect(error?.message).not.toContain(NEW);
    });

    it('reseal moves a secret to the newest key (v1 and v2 alike); isCurrent tells which are done', () => {
      const rotated = new SecretBox([NEW, OLD]);
      const v1 = sealV1(OLD, 'p', 'one');
      const v2old = new SecretBox(OLD).seal('p', 'two');
      expect(rotated.isCurrent(v1)).toBe(false);
      expect(rotated.isCurrent(v2old)).toBe(false);

      const r1 = rotated.reseal('p', v1);
      const r2 = rotated.reseal('p', v2old);
      expect(r1.split('.')[1]).toBe(masterKeyId(NEW));
      expect(r2.split('.')[1]).toBe(masterKeyId(NEW));
      expect(rotated.isCurrent(r1)).toBe(true);
      expect(rotated.isCurrent(r2)).toBe(true);

      // Only the new key is needed from now on.
      const onlyNew = new SecretBox(NEW);
      expect(onlyNew.open('p', r1).toString()).toBe('one');
      expect(onlyNew.open('p', r2).toString()).toBe('two');
      expect(onlyNew.isCurrent(r1)).toBe(true);
      // A v1 value under the newest key is still not current: it carries no kid.
      expect(onlyNew.isCurrent(sealV1(NEW, 'p', 'x'))).toBe(false);
      expect(new SecretBox(OLD).isCurrent(r1)).toBe(false);
    });

    it('reseal refuses what it cannot open (nothing is written under a guess)', () => {
      expect(() => new SecretBox(NEW).reseal('p', new SecretBox(OLD).seal('p', 'x'))).toThrow(/not configured/);
    });

    it('MACs use the newest key only (rotation invalidates codes in flight)', () => {
      const before = new SecretBox(OLD).mac('otp-code', 'flow:123456');
      const after = new SecretBox([NEW, OLD]);
      expect(after.mac('otp-code', 'flow:123456')).toBe(new SecretBox(NEW).mac('otp-code', 'flow:123456'));
      expect(after.macEquals('otp-code', 'flow:123456', before)).toBe(false);
      expect(new SecretBox(OLD).macEquals('otp-code', 'flow:123456', before)).toBe(true);
    });

    it('refuses an empty key list and a key configured twice', () => {
      expect(() => new SecretBox([])).toThrow();
      expect(() => new SecretBox([NEW, OLD, NEW])).toThrow(/twice/);
    });
  });
});
