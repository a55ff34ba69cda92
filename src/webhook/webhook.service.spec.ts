import { DomainError } from '../common/errors/domain-error';
import { decodeIdCursor, encodeIdCursor } from '../common/wire/paging';
import { subscribedEvents } from './webhook.service';

function violationsOf(fn: () => unknown): Array<{ field: string; description: string }> {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).options.fieldViolations ?? [];
  }
  throw new Error('expected a DomainError');
}

describe('subscribedEvents', () => {
  it('keeps known types in the order given, without duplicates; "*" alone', () => {
    expect(subscribedEvents(['user.deleted', 'user.created', 'user.deleted'])).toEqual(['user.deleted', 'user.created']);
    expect(subscribedEvents(['*'])).toEqual(['*']);
    expect(subscribedEvents(['*', '*'])).toEqual(['*']);
  });

  it('names each unknown type by its index', () => {
    const violations = violationsOf(() => subscribedEvents(['user.created', 'user.exploded', 'sign_in']));
    expect(violations.map((v) => v.field)).toEqual(['events[1]', 'events[2]']);
    expect(violations[0].description).toContain('"user.exploded"');
  });

  it('refuses an empty list and "*" beside other types', () => {
    expect(violationsOf(() => subscribedEvents([])).map((v) => v.field)).toEqual(['events']);
    expect(violationsOf(() => subscribedEvents(['*', 'user.created'])).map((v) => v.field)).toEqual(['events']);
  });
});

describe('keyset cursors', () => {
  it('round-trip an id under their tag and refuse another tag’s, or no cursor at all', () => {
    const cursor = encodeIdCursor('d', '42');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeIdCursor('d', cursor)).toBe('42');
    expect(decodeIdCursor('a', cursor)).toBeUndefined();
    for (const bad of ['', 'not base64!', Buffer.from('d:0').toString('base64url'), Buffer.from('d:9223372036854775808').toString('base64url'), Buffer.from('d:1 OR 1=1').toString('base64url')]) {
      expect(decodeIdCursor('d', bad)).toBeUndefined();
    }
  });
});
