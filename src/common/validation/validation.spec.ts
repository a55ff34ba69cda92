import { DomainError } from '../errors/domain-error';
import { assertWellFormed, MAX_BODY_DEPTH } from './validation';

function refusal(value: unknown): { reason: string; fields: string[] } | undefined {
  try {
    assertWellFormed(value);
    return undefined;
  } catch (err) {
    const e = err as DomainError;
    return { reason: e.reason, fields: (e.options.fieldViolations ?? []).map((v) => v.field) };
  }
}

describe('assertWellFormed', () => {
  it('accepts ordinary values, emoji (paired surrogates) included', () => {
    expect(refusal({ name: 'Zoë 🙂', tags: ['a', 'b'], n: 1, nested: { ok: true, none: null } })).toBeUndefined();
  });

  it('refuses NUL and unpaired surrogates in values and keys, naming the field', () => {
    expect(refusal({ username: 'a\u0000b' })).toEqual({ reason: 'VALIDATION_FAILED', fields: ['username'] });
    expect(refusal({ email: '\ud800' })).toEqual({ reason: 'VALIDATION_FAILED', fields: ['email'] });
    expect(refusal({ email: 'x\udc00' })).toEqual({ reason: 'VALIDATION_FAILED', fields: ['email'] });
    expect(refusal({ profile: { address: { locality: 'a\u0000' } } })).toEqual({ reason: 'VALIDATION_FAILED', fields: ['profile.address.locality'] });
    expect(refusal({ allowedOrigins: ['https://a.test', 'b\u0000'] })).toEqual({ reason: 'VALIDATION_FAILED', fields: ['allowedOrigins[1]'] });
    expect(refusal({ ['k\u0000']: 1 })).toEqual({ reason: 'VALIDATION_FAILED', fields: ['k\u0000'] });
  });

  it(`refuses nesting beyond ${MAX_BODY_DEPTH} levels without recursion, however deep`, () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(refusal(deep)).toEqual({ reason: 'BODY_TOO_DEEP', fields: [] });
    let list: unknown = [];
    for (let i = 0; i < 100_000; i++) list = [list];
    expect(refusal(list)).toEqual({ reason: 'BODY_TOO_DEEP', fields: [] });
    let ok: unknown = 'leaf';
    for (let i = 0; i < MAX_BODY_DEPTH; i++) ok = { a: ok };
    expect(refusal(ok)).toBeUndefined();
  });
});
