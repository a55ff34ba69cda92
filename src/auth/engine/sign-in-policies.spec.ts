import { Logger } from '@nestjs/common';
import { SignInPolicies, SignInPolicyContext } from './sign-in-policies';

const context: SignInPolicyContext = {
  tenantID: 't1',
  sectorID: 's1',
  user: { id: 'u1', username: 'ann', email: 'ann@example.com', isAdmin: false, roles: [], permissions: [] },
  factors: ['PASSWORD'],
  amr: ['pwd'],
  clientIp: '203.0.113.9',
  userAgent: 'curl/8',
};

describe('SignInPolicies (the sign-in policies of extension modules)', () => {
  let error: jest.SpyInstance;
  beforeEach(() => {
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  const policies = (...list: Array<[string, (ctx: SignInPolicyContext) => unknown]>) => {
    const registry = new SignInPolicies({ extensionHookTimeoutMs: 50 } as never);
    for (const [name, policy] of list) registry.add(name, policy as never);
    return registry;
  };

  it('allows when there are none or all allow', async () => {
    expect(policies().size).toBe(0);
    await expect(policies().decide(context)).resolves.toBe('allow');
    await expect(policies(['a', () => ({ decision: 'allow' })], ['b', async () => ({ decision: 'allow' })]).decide(context)).resolves.toBe('allow');
  });

  it('asks for a second factor when one asks for it and none refuses', async () => {
    await expect(policies(['a', () => ({ decision: 'require_mfa' })], ['b', () => ({ decision: 'allow' })]).decide(context)).resolves.toBe('require_mfa');
  });

  it('refuses with the first deny, its message and PERMISSION_DENIED; later policies are not asked', async () => {
    const later = jest.fn(() => ({ decision: 'allow' }));
    const registry = policies(['mfa', () => ({ decision: 'require_mfa' })], ['geo', () => ({ decision: 'deny', message: '  Not from that country.  ' })], ['later', later]);
    await expect(registry.decide(context)).rejects.toMatchObject({ code: 7, reason: 'SIGN_IN_DENIED_BY_POLICY', message: 'Not from that country.' });
    expect(later).not.toHaveBeenCalled();
  });

  it('gives a deny without a message a generic one, and cuts a long one', async () => {
    await expect(policies(['a', () => ({ decision: 'deny' })]).decide(context)).rejects.toMatchObject({ message: 'A sign-in policy refused this sign-in.' });
    await expect(policies(['a', () => ({ decision: 'deny', message: 'x'.repeat(1000) })]).decide(context)).rejects.toMatchObject({ message: 'x'.repeat(300) });
  });

  it('hands every policy the context', async () => {
    const policy = jest.fn(() => ({ decision: 'allow' }));
    await policies(['a', policy]).decide(context);
    expect(policy).toHaveBeenCalledWith(context);
  });

  it.each([
    ['throws', () => { throw new Error('geo service down'); }, /geo service down/],
    ['rejects', () => Promise.reject(new Error('geo service down')), /geo service down/],
    ['answers late', () => new Promise((resolve) => setTimeout(() => resolve({ decision: 'allow' }), 500)), /no answer within 50 ms/],
    ['answers nothing', () => undefined, /must answer \{ decision/],
    ['answers an unknown decision', () => ({ decision: 'maybe' }), /must answer \{ decision/],
    ['answers a boolean', () => true, /must answer \{ decision/],
    ['denies with a message that is not a string', () => ({ decision: 'deny', message: 42 }), /message as a string/],
  ])('fails safe when a policy %s: the step is refused with UNAVAILABLE, never allowed, and logged with its name', async (_what, policy, logged) => {
    await expect(policies(['ok', () => ({ decision: 'allow' })], ['geo-ext', policy]).decide(context)).rejects.toMatchObject({ code: 14, reason: 'EXTENSION_HOOK_FAILED' });
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0][0]).toMatch(/^Extension hook "geo-ext" failed: /);
    expect(error.mock.calls[0][0]).toMatch(logged);
  });
});
