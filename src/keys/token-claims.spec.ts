import { Logger } from '@nestjs/common';
import { EXTENSION_CLAIMS_MAX_BYTES, TokenClaims, TokenClaimsContext } from './token-claims';

const context: TokenClaimsContext = {
  tenantID: 't1',
  sectorID: 's1',
  user: { id: 'u1', username: 'ann', email: 'ann@example.com', isAdmin: false, roles: ['staff'], permissions: ['doc:read'] },
};

describe('TokenClaims (claims extension modules add to access tokens)', () => {
  let warn: jest.SpyInstance;
  let error: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  const claims = (...contributors: Array<[string, (ctx: TokenClaimsContext) => unknown]>) => {
    const registry = new TokenClaims({ extensionHookTimeoutMs: 50 } as never);
    for (const [name, fn] of contributors) registry.add(name, fn as never);
    return registry;
  };

  it('is inactive until a contributor is added', () => {
    expect(claims().active).toBe(false);
    expect(claims(['a', () => ({})]).active).toBe(true);
  });

  it('merges what the contributors answer, in registration order, from the context they are given', async () => {
    const seen: unknown[] = [];
    const registry = claims(
      ['a', (ctx) => (seen.push(ctx), { dept: 'sales', shared: 1 })],
      ['b', async () => ({ shared: 2, nested: { list: [1, 'two', null, true] } })],
    );
    await expect(registry.collect(context)).resolves.toEqual({ dept: 'sales', shared: 2, nested: { list: [1, 'two', null, true] } });
    expect(seen).toEqual([context]);
  });

  it('ignores reserved claims and logs each once per contributor', async () => {
    const registry = claims(['ext', () => ({ sub: 'someone-else', roles: ['admin'], sid: 'x', aud: 'other', ok: true })]);
    await expect(registry.collect(context)).resolves.toEqual({ ok: true });
    await registry.collect(context);
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      'Extension claims contributor "ext" set the reserved claim "sub": ignored',
      'Extension claims contributor "ext" set the reserved claim "roles": ignored',
      'Extension claims contributor "ext" set the reserved claim "sid": ignored',
      'Extension claims contributor "ext" set the reserved claim "aud": ignored',
    ]);
  });

  it('keeps an own "__proto__" claim as data', async () => {
    const registry = claims(['ext', () => JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>]);
    const merged = await registry.collect(context);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"polluted":true}}');
  });

  it.each([
    ['throws', () => { throw new Error('directory down'); }, /directory down/],
    ['rejects', async () => Promise.reject(new Error('directory down')), /directory down/],
    ['answers late', () => new Promise(() => undefined), /no answer within 50 ms/],
    ['answers no object', () => 'dept=sales', /must answer an object of claims/],
    ['answers an array', () => ['dept'], /must answer an object of claims/],
    ['answers a value that is not JSON', () => ({ when: new Date(0) }), /claim "when" is not JSON/],
    ['answers a number that is not JSON', () => ({ n: Number.NaN }), /claim "n" is not JSON/],
    ['answers undefined in a claim', () => ({ u: undefined }), /claim "u" is not JSON/],
    ['answers a function', () => ({ f: () => 1 }), /claim "f" is not JSON/],
    ['nests too deep', () => ({ deep: [[[[[[[[[1]]]]]]]]] }), /claim "deep" is not JSON/],
  ])('fails safe when a contributor %s: UNAVAILABLE, logged with its name', async (_what, contribute, logged) => {
    await expect(claims(['good', () => ({ a: 1 })], ['bad-ext', contribute]).collect(context)).rejects.toMatchObject({ code: 14, reason: 'EXTENSION_HOOK_FAILED' });
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0][0]).toMatch(/^Extension hook "bad-ext" failed: /);
    expect(error.mock.calls[0][0]).toMatch(logged);
  });

  it(`refuses claims over ${EXTENSION_CLAIMS_MAX_BYTES} bytes together`, async () => {
    const half = 'x'.repeat(EXTENSION_CLAIMS_MAX_BYTES / 2);
    await expect(claims(['a', () => ({ a: half.slice(20) })], ['b', () => ({ b: half.slice(20) })]).collect(context)).resolves.toBeDefined();
    await expect(claims(['a', () => ({ a: half })], ['b', () => ({ b: half })]).collect(context)).rejects.toMatchObject({ reason: 'EXTENSION_HOOK_FAILED' });
    expect(error.mock.calls[0][0]).toMatch(/"a, b" failed: the claims weigh \d+ bytes, over 2048/);
  });
});
