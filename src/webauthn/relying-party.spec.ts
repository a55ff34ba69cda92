import { relyingPartyViolations } from '../settings/settings.validation';
import { isUsableRelyingParty, resolveRelyingParty, settingsConfigureRelyingParty } from '../settings/relying-party';
import { knownTransports, sanitizeDetail, toBase64Url, userHandleOf } from './ceremony';

const sector = { name: 'Shop', domain: 'shop.example.com', allowedOrigins: ['https://shop.example.com'] };
const empty = { webauthnRpId: '', webauthnRpDisplayName: '', webauthnRpOrigins: [] as string[], webauthnDebug: false };

describe('resolveRelyingParty', () => {
  it("falls back to the sector's domain, name and allowed origins when the settings are empty", () => {
    expect(resolveRelyingParty(sector, empty)).toEqual({ id: 'shop.example.com', name: 'Shop', origins: ['https://shop.example.com'], debug: false });
  });

  it('takes each setting that is set, field by field', () => {
    expect(resolveRelyingParty(sector, { ...empty, webauthnRpId: 'example.com' })).toEqual({
      id: 'example.com',
      name: 'Shop',
      origins: ['https://shop.example.com'],
      debug: false,
    });
    expect(
      resolveRelyingParty(sector, {
        webauthnRpId: 'example.com',
        webauthnRpDisplayName: 'Example',
        webauthnRpOrigins: ['https://a.example.com', 'https://b.example.com'],
        webauthnDebug: true,
      }),
    ).toEqual({ id: 'example.com', name: 'Example', origins: ['https://a.example.com', 'https://b.example.com'], debug: true });
  });

  it('is unusable without an RP ID or without origins', () => {
    expect(isUsableRelyingParty(resolveRelyingParty({ name: 'x', domain: '', allowedOrigins: [] }, empty))).toBe(false);
    expect(isUsableRelyingParty(resolveRelyingParty({ ...sector, allowedOrigins: [] }, empty))).toBe(false);
    expect(isUsableRelyingParty(resolveRelyingParty(sector, empty))).toBe(true);
  });

  it('knows when the settings themselves configure passkeys', () => {
    expect(settingsConfigureRelyingParty(empty)).toBe(false);
    expect(settingsConfigureRelyingParty({ ...empty, webauthnRpId: 'example.com' })).toBe(true);
    expect(settingsConfigureRelyingParty({ ...empty, webauthnRpOrigins: ['https://example.com'] })).toBe(true);
  });
});

describe('relyingPartyViolations', () => {
  it('accepts origins on the RP ID or its subdomains, https, and http on localhost only', () => {
    expect(relyingPartyViolations({ rpId: 'example.com', origins: ['https://example.com', 'https://app.example.com:8443'] })).toEqual([]);
    expect(relyingPartyViolations({ rpId: 'localhost', origins: ['http://localhost:5173', 'https://localhost'] })).toEqual([]);
  });

  it('refuses an origin on another host, also one that only ends with the RP ID', () => {
    expect(relyingPartyViolations({ rpId: 'example.com', origins: ['https://evil.com'] })).toEqual([
      { field: 'WebAuthnRPOrigins', description: expect.stringContaining('https://evil.com is not on the RP ID example.com') },
    ]);
    expect(relyingPartyViolations({ rpId: 'example.com', origins: ['https://notexample.com'] })).toHaveLength(1);
    // A subdomain origin does not make its parent an allowed RP ID the other way round.
    expect(relyingPartyViolations({ rpId: 'app.example.com', origins: ['https://example.com'] })).toHaveLength(1);
  });

  it('blames the field the caller changed for a mismatch', () => {
    expect(relyingPartyViolations({ rpId: 'other.com', origins: ['https://example.com'] }, 'WebAuthnRPID')).toEqual([
      { field: 'WebAuthnRPID', description: expect.any(String) },
    ]);
  });

  it('refuses http except on localhost', () => {
    expect(relyingPartyViolations({ rpId: 'example.com', origins: ['http://example.com'] })).toEqual([
      { field: 'WebAuthnRPOrigins', description: expect.stringContaining('must use https') },
    ]);
    expect(relyingPartyViolations({ rpId: 'iam.test', origins: ['http://iam.test'] })).toHaveLength(1);
  });

  it('needs an RP ID that is a domain name, and at least one origin', () => {
    expect(relyingPartyViolations({ rpId: '', origins: ['https://example.com'] })).toEqual([{ field: 'WebAuthnRPID', description: expect.any(String) }]);
    expect(relyingPartyViolations({ rpId: '10.0.0.1', origins: ['https://10.0.0.1'] })).toEqual([{ field: 'WebAuthnRPID', description: expect.any(String) }]);
    expect(relyingPartyViolations({ rpId: 'example.com', origins: [] })).toEqual([{ field: 'WebAuthnRPOrigins', description: expect.any(String) }]);
  });

  it('answers one violation per field, however many origins are wrong', () => {
    const violations = relyingPartyViolations({ rpId: 'example.com', origins: ['http://a.com', 'https://b.com'] });
    expect(violations.map((v) => v.field)).toEqual(['WebAuthnRPOrigins']);
    expect(violations[0].description).toContain('http://a.com');
    expect(violations[0].description).toContain('https://b.com');
  });
});

describe('ceremony helpers', () => {
  it('accepts standard or URL-safe base64, padded or not, as canonical base64url', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x01]);
    for (const form of [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('base64').replace(/=+$/, '')]) {
      expect(toBase64Url(form)).toBe('-__-AQ');
    }
    expect(toBase64Url('not base64!')).toBeUndefined();
    expect(toBase64Url('')).toBeUndefined();
  });

  it("derives the user handle from the user's id", () => {
    expect(Buffer.from(userHandleOf('00112233-4455-6677-8899-aabbccddeeff'), 'base64url').toString('hex')).toBe('00112233445566778899aabbccddeeff');
  });

  it('keeps known transports only, sorted and once', () => {
    expect(knownTransports(['usb', 'internal', 'bogus', 'usb', 3])).toEqual(['internal', 'usb']);
    expect(knownTransports(undefined)).toEqual([]);
  });

  it('never lets a challenge or key through a debug detail', () => {
    const challenge = 'q3JmVx0b9Yk2nW8pLr4tZs1aBcDeFgHiJkLmNoPqRsT';
    expect(sanitizeDetail(`Unexpected authentication response challenge "${challenge}", expected "${challenge}"`)).not.toContain(challenge);
  });
});
