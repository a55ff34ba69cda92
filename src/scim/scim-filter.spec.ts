import { parseScimFilter, ScimFilterError } from './scim-filter';

const eq = (attr: string, value: unknown, extra: Record<string, unknown> = {}) => ({ kind: 'attr', path: { attr, ...extra }, test: { op: 'eq', value } });

describe('SCIM filters (RFC 7644 §3.4.2.2)', () => {
  it('reads attribute expressions with every operator, case-insensitively', () => {
    expect(parseScimFilter('userName eq "bjensen"')).toEqual(eq('username', 'bjensen'));
    expect(parseScimFilter('USERNAME EQ "bjensen"')).toEqual(eq('username', 'bjensen'));
    for (const op of ['ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le']) {
      expect(parseScimFilter(`title ${op.toUpperCase()} "x"`)).toEqual({ kind: 'attr', path: { attr: 'title' }, test: { op, value: 'x' } });
    }
    expect(parseScimFilter('title pr')).toEqual({ kind: 'attr', path: { attr: 'title' }, test: { op: 'pr' } });
  });

  it('reads every kind of value: JSON strings with escapes, numbers, true, false, null', () => {
    expect(parseScimFilter('displayName eq "Babs \\"B\\" Jensen \\u00e9"')).toEqual(eq('displayname', 'Babs "B" Jensen é'));
    expect(parseScimFilter('x eq 42')).toEqual(eq('x', 42));
    expect(parseScimFilter('x eq -1.5e3')).toEqual(eq('x', -1500));
    expect(parseScimFilter('active eq True')).toEqual(eq('active', true));
    expect(parseScimFilter('active eq false')).toEqual(eq('active', false));
    expect(parseScimFilter('manager eq null')).toEqual(eq('manager', null));
  });

  it('reads sub-attributes and schema-qualified paths', () => {
    expect(parseScimFilter('name.familyName co "O\'Malley"')).toEqual({ kind: 'attr', path: { attr: 'name', sub: 'familyname' }, test: { op: 'co', value: "O'Malley" } });
    expect(parseScimFilter('meta.lastModified gt "2011-05-13T04:42:34Z"')).toEqual({
      kind: 'attr',
      path: { attr: 'meta', sub: 'lastmodified' },
      test: { op: 'gt', value: '2011-05-13T04:42:34Z' },
    });
    expect(parseScimFilter('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "701984"')).toEqual(
      eq('employeenumber', '701984', { uri: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User' }),
    );
    expect(parseScimFilter('urn:ietf:params:scim:schemas:core:2.0:User:name.givenName eq "Barbara"')).toEqual(
      eq('name', 'Barbara', { uri: 'urn:ietf:params:scim:schemas:core:2.0:User', sub: 'givenname' }),
    );
  });

  it('binds not tighter than and, and tighter than or; parentheses group', () => {
    const a = eq('a', 1);
    const b = eq('b', 2);
    const c = eq('c', 3);
    expect(parseScimFilter('a eq 1 or b eq 2 and c eq 3')).toEqual({ kind: 'or', left: a, right: { kind: 'and', left: b, right: c } });
    expect(parseScimFilter('(a eq 1 or b eq 2) and c eq 3')).toEqual({ kind: 'and', left: { kind: 'or', left: a, right: b }, right: c });
    expect(parseScimFilter('a eq 1 and not (b eq 2 or c eq 3)')).toEqual({ kind: 'and', left: a, right: { kind: 'not', filter: { kind: 'or', left: b, right: c } } });
    expect(parseScimFilter('a eq 1 and b eq 2 and c eq 3')).toEqual({ kind: 'and', left: { kind: 'and', left: a, right: b }, right: c });
  });

  it('reads value paths, and the sub-attribute directories add after them', () => {
    expect(parseScimFilter('emails[type eq "work" and value co "@example.com"]')).toEqual({
      kind: 'valuePath',
      path: { attr: 'emails' },
      filter: { kind: 'and', left: eq('type', 'work'), right: { kind: 'attr', path: { attr: 'value' }, test: { op: 'co', value: '@example.com' } } },
    });
    expect(parseScimFilter('emails[type eq "work"].value eq "bjensen@example.com"')).toEqual({
      kind: 'valuePath',
      path: { attr: 'emails' },
      filter: eq('type', 'work'),
      then: { sub: 'value', test: { op: 'eq', value: 'bjensen@example.com' } },
    });
    expect(parseScimFilter('userType eq "Employee" and emails[type eq "work"]')).toMatchObject({ kind: 'and', right: { kind: 'valuePath' } });
  });

  it.each([
    ['', 'empty'],
    ['userName', 'operator'],
    ['userName eq', 'value'],
    ['userName xx "a"', 'not an operator'],
    ['userName eq bjensen', 'value'],
    ['userName eq "open', 'unterminated'],
    ['userName eq "bad \\x"', 'malformed string'],
    ['(userName eq "a"', '")"'],
    ['userName eq "a")', 'unexpected'],
    ['userName eq "a" and', 'attribute'],
    ['emails[type eq "work"', '"]"'],
    ['name.givenName[type eq "x"]', 'value filter'],
    ['a.b.c eq 1', 'not an attribute path'],
    ['1abc eq 1', 'attribute'],
    ['userName eq "a" # 1', 'unexpected "#"'],
    ['userName eq "a" userName eq "b"', 'unexpected'],
  ])('refuses %j (%s)', (text, why) => {
    expect(() => parseScimFilter(text)).toThrow(ScimFilterError);
    expect(() => parseScimFilter(text)).toThrow(why);
  });

  it('refuses filters nested too deeply or too long, without exhausting the stack', () => {
    expect(() => parseScimFilter(`${'not ('.repeat(40)}a eq 1${')'.repeat(40)}`)).toThrow('levels deep');
    expect(() => parseScimFilter(`${'('.repeat(100_000)}a eq 1`)).toThrow(ScimFilterError);
    expect(() => parseScimFilter(`a eq "${'x'.repeat(5000)}"`)).toThrow('longer than');
  });
});
