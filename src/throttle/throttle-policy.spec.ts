import { accountKey, addressKey, blockSeconds, delaySchedule } from './throttle-policy';

describe('throttle policy', () => {
  const defaults = { freeAttempts: 5, baseDelaySeconds: 1, maxDelaySeconds: 900 };

  describe('blockSeconds', () => {
    it('is free within the allowance', () => {
      for (let n = 0; n <= 5; n++) expect(blockSeconds(n, defaults)).toBe(0);
    });

    it('doubles from twice the base with each failure past the allowance', () => {
      expect([6, 7, 8, 9, 10].map((n) => blockSeconds(n, defaults))).toEqual([2, 4, 8, 16, 32]);
      expect(blockSeconds(4, { freeAttempts: 3, baseDelaySeconds: 5, maxDelaySeconds: 900 })).toBe(10);
    });

    it('stops at the cap, also for absurd counts', () => {
      expect(blockSeconds(15, defaults)).toBe(900);
      expect(blockSeconds(1_000_000, defaults)).toBe(900);
    });

    it('blocks from the first failure with no allowance', () => {
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
      for (const free of [0, 5, 50]) {
        for (let excess = 1; excess <= 20; excess++) {
          const expected = blockSeconds(free + excess, { freeAttempts: free, baseDelaySeconds: 3, maxDelaySeconds: 1000 });
          expect(schedule[Math.min(excess, schedule.length) - 1]).toBe(expected);
        }
      }
    });
  });

  describe('keys', () => {
    it('account keys are per kind, tenant, sector and case-insensitive login', () => {
      expect(accountKey('password', 't1', 's1', 'Alice@Example.TEST')).toBe('password:acct:t1:s1:alice@example.test');
      expect(accountKey('code', 't1', 's1', 'alice')).not.toBe(accountKey('password', 't1', 's1', 'alice'));
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
