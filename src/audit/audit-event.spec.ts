import { actorOf, decodeAuditCursor, encodeAuditCursor } from './audit-event';
import type { Principal } from '../access/principal';

describe('audit cursor', () => {
  it.each(['1', '42', '9223372036854775807'])('round-trips id %s', (id) => {
    const cursor = encodeAuditCursor(id);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeAuditCursor(cursor)).toBe(id);
  });

  it.each(['', 'not base64!', Buffer.from('a:0').toString('base64url'), Buffer.from('a:-1').toString('base64url'), Buffer.from('42').toString('base64url'), Buffer.from('a:1 OR 1=1').toString('base64url'), Buffer.from('a:9223372036854775808').toString('base64url')])(
    'refuses %j',
    (cursor) => {
      expect(decodeAuditCursor(cursor)).toBeUndefined();
    },
  );
});

describe('actorOf', () => {
  it('names users and API tokens by id, never by credential', () => {
    expect(actorOf({ kind: 'apiToken', tenant: {}, sectorId: 's', tokenId: 'tid' } as unknown as Principal)).toEqual({ kind: 'apiToken', id: 'tid' });
    expect(actorOf({ kind: 'user', tenant: {}, sectorId: 's', userId: 'u1', tokenId: 'jti' } as unknown as Principal)).toEqual({ kind: 'user', id: 'u1' });
    expect(actorOf({ kind: 'transaction', tenant: {}, sectorId: 's', userId: 'u2', transactionId: 'tx' } as unknown as Principal)).toEqual({ kind: 'user', id: 'u2' });
  });
});
