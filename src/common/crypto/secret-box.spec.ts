import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox('a-master-key-of-at-least-32-characters!!');

  it('round-trips a secret for the same purpose', () => {
    const sealed = box.seal('signing-key', 'top secret');
    expect(sealed).toMatch(/^v1\./);
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
    parts[3] = Buffer.from('jello').toString('base64url');
    expect(() => box.open('p', parts.join('.'))).toThrow();
  });
});
