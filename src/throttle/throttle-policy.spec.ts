import { accountKey, accountRef, addressKey, blockSeconds, delaySchedule } from './throttle-policy';

describe('throttle policy', () => {
  const defaults = { freeAttempts: 5, baseDelaySeconds: 1, maxDelaySeconds: 900 };

  describe('blockSeconds', () => {
    it('is free before the allowance', () => {
      for (let n = 0; n <= 4; n++) expect(blockSeconds(n, defaults)).toBe(0);
    });

    it('the last attempt of the allowance starts the first delay (twice the base), each further attempt doubles it', () => {
      expect([5, 6, 7, 8, 9].map((n) => blockSeconds(n, defaults))).toEqual([2, 4, 8, 16, 32]);
      expect(blockSeconds(3, { freeAttempts: 3, baseDelaySeconds: 5, maxDelaySeconds: 900 })).toBe(10);
    });

    it('stops at the cap, also for absurd counts', () => {
      expect(blockSeconds(15, defaults)).toBe(900);
      expect(blockSeconds(1_000_000, defaults)).toBe(900);
    });

    it('an allowance of 1 (or 0) delays every attempt after the first', () => {
      expect(blockSeconds(1, { ...defaults, freeAttempts: 1 })).toBe(2);
      expect(blockSeconds(1, { ...defaults, freeAttempts: 0 })).toBe(2);
    });
  });

  describe('delaySchedule', () => {
    it('lists the delays past the allowance up to the first capped one', () => {
      expect(delaySchedule({ baseDelaySeconds: 1, maxDelaySeconds: 900 })).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 512, 900]);
      expect(delaySchedule({ baseDelaySeconds: 1, maxDelaySeconds: 8 })).toEqual([2, 4, 8]);
    });

    it('is the cap alone when the cap is below twice the base', () => {
      expect(delaySchedule({ baseDelaySeconds: 5, maxDelaySeconds: 5 })).toEqual([5]);
    });

    it('agrees with blockSeconds whatever the allowance', () => {
      const schedule = delaySchedule({ baseDelaySeconds: 3, maxDelaySeconds: 1000 });
      for (const free of [1, 5, 50]) {
        for (let excess = 1; excess <= 20; excess++) {
          const expected = blockSeconds(free + excess - 1, { freeAttempts: free, baseDelaySeconds: 3, maxDelaySeconds: 1000 });
          expect(schedule[Math.min(excess, schedule.length) - 1]).toBe(expected);
        }
      }
    });
  });

  describe('keys', () => {
    it('account keys are per kind, tenant, sector and account', () => {
      expect(accountKey('password', 't1', 's1', accountRef(undefined, ' Alice@Example.TEST'))).toBe('password:acct:t1:s1:login:alice@example.test');
      expect(accountKey('code', 't1', 's1', 'id:u1')).not.toBe(accountKey('password', 't1', 's1', 'id:u1'));
    });
    it('an existing account is counted by its id, whatever login named it; an unknown one by its login', () => {
      expect(accountRef('u1', 'alice')).toBe('id:u1');
      expect(accountRef('u1', 'alice@example.test')).toBe('id:u1');
      expect(accountRef(null, 'Nobody')).toBe('login:nobody');
      // A login that looks like an id never shares a bucket with that user.
      expect(accountRef(null, 'id:u1')).not.toBe(accountRef('u1', 'x'));
    });

    it('address keys normalise IPv4-mapped addresses and group IPv6 by /64', () => {
      expect(addressKey('password', '203.0.113.7')).toBe('password:ip:203.0.113.7');
      expect(addressKey('password', '::ffff:203.0.113.7')).toBe('password:ip:203.0.113.7');
      expect(addressKey('password', '2001:db8:0:1:aaaa::1')).toBe('password:ip:2001:db8:0:1::/64');
      expect(addressKey('password', '2001:0DB8:0000:0001:ffff:1:2:3')).toBe('password:ip:2001:db8:0:1::/64');
      expect(addressKey('password', '2001:db8::1')).toBe('password:ip:2001:db8:0:0::/64');
      expect(addressKey('password', '::1')).toBe('password:ip:0:0:0:0::/64');
      expect(addressKey('code', '203.0.113.7')).toBe('code:ip:203.0.113.7');
    });

    it('has no address key without an address', () => {
      expect(addressKey('password', '')).toBeUndefined();
    });
  });
});
