import type { ExecutionContext } from '@nestjs/common';
import { ScimError } from './scim-error';
import { ScimThrottleGuard } from './scim-throttle.guard';

const contextOf = (user: unknown) => ({ switchToHttp: () => ({ getRequest: () => ({ user }) }) }) as unknown as ExecutionContext;
const token = (tokenId: string) => contextOf({ kind: 'apiToken', tokenId });

describe('SCIM throttle (a burst of 200 per API token, refilled at 50 a second)', () => {
  let now = 1_000_000;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('lets a burst of 200 through, refuses the next with 429 and a Retry-After, and refills at 50 a second', () => {
    const guard = new ScimThrottleGuard();
    for (let i = 0; i < 200; i++) expect(guard.canActivate(token('a'))).toBe(true);
    let refused: unknown;
    try {
      guard.canActivate(token('a'));
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ScimError);
    expect(refused).toMatchObject({ status: 429, retryAfterSeconds: 1 });
    // Another token is not held back.
    expect(guard.canActivate(token('b'))).toBe(true);
    // 100 ms later, 5 more.
    now += 100;
    for (let i = 0; i < 5; i++) expect(guard.canActivate(token('a'))).toBe(true);
    expect(() => guard.canActivate(token('a'))).toThrow(ScimError);
  });

  it('leaves anything but an API token to the role guard', () => {
    const guard = new ScimThrottleGuard();
    for (let i = 0; i < 300; i++) expect(guard.canActivate(contextOf({ kind: 'user', userId: 'u' }))).toBe(true);
  });
});
