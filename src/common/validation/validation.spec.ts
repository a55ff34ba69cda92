import { IsOptional, IsString } from 'class-validator';
import { DomainError } from '../errors/domain-error';
import { assertWellFormed, createValidationPipe, MAX_BODY_DEPTH } from './validation';

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

describe('the validation pipe on an empty query string', () => {
  class OptionalQuery {
    @IsOptional() @IsString() searchTerm?: string;
  }
  class RequiredQuery {
    @IsString() token!: string;
  }
  const pipe = createValidationPipe();
  const asQuery = (metatype: new () => unknown) => ({ type: 'query' as const, metatype, data: undefined });

  it('answers an instance of an all-optional DTO, the first time and after (when the answer is remembered)', async () => {
    for (let i = 0; i < 3; i++) {
      const out = await pipe.transform({}, asQuery(OptionalQuery));
      expect(out).toBeInstanceOf(OptionalQuery);
      expect(out).toEqual(new OptionalQuery());
    }
  });

  it('refuses an empty query for a DTO with a required field every time', async () => {
    for (let i = 0; i < 3; i++) await expect(pipe.transform({}, asQuery(RequiredQuery))).rejects.toBeInstanceOf(DomainError);
  });

  it('still validates a query that is not empty', async () => {
    await pipe.transform({}, asQuery(OptionalQuery));
    await expect(pipe.transform({ searchTerm: ['a', 'b'] }, asQuery(OptionalQuery))).rejects.toBeInstanceOf(DomainError);
    await expect(pipe.transform({ searchTerm: 'a' }, asQuery(OptionalQuery))).resolves.toEqual(Object.assign(new OptionalQuery(), { searchTerm: 'a' }));
  });
});
