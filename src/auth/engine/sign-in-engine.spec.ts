import { Logger } from '@nestjs/common';
import { DomainError } from '../../common/errors/domain-error';
import { Assurance, nextStep } from './auth-policy';
import { AuthTransactionEntity } from './auth-transaction.entity';
import { FactorRegistry } from './factor-registry';
import { BeginOutcome, FactorStrategy, PendingSlot, StepState, Verdict } from './factor-strategy';
import { SignInEngine } from './sign-in-engine';
import { SignInPolicies } from './sign-in-policies';

/*
 * Factors this service has never heard of, declared only by their strategies:
 * the engine and the policy take them without a change.
 */
const PIN: Assurance = { factor: 'PIN', kind: 'knowledge', secondFactor: false, satisfiesMfaAlone: false, amr: ['pin'] };
const BADGE: Assurance = { factor: 'BADGE', kind: 'link', secondFactor: false, satisfiesMfaAlone: false, amr: ['otp'] };
const TOKEN: Assurance = { factor: 'HARDWARE_TOKEN', kind: 'possession', secondFactor: true, satisfiesMfaAlone: false, challengeType: 'HARDWARE_TOKEN', amr: ['otp'] };
const PUSH: Assurance = { factor: 'PUSH', kind: 'possession', secondFactor: true, satisfiesMfaAlone: false, challengeType: 'PUSH', amr: ['mca'] };
const SMART_CARD: Assurance = { factor: 'SMART_CARD', kind: 'possession', secondFactor: true, satisfiesMfaAlone: true, challengeType: 'SMART_CARD', amr: ['sc'] };

describe('nextStep on factors the policy has never heard of', () => {
  const cases: Array<[string, Assurance[], boolean, Assurance[], { status: string; challengeType: string }]> = [
    ['a first factor alone, nothing required', [PIN], false, [], { status: 'SUCCESS', challengeType: '' }],
    ['another first factor alone, nothing required', [BADGE], false, [], { status: 'SUCCESS', challengeType: '' }],
    ['a first factor where MFA is required and nothing is enrolled', [PIN], true, [], { status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' }],
    ['a first factor of a user who enrolled a second one', [PIN], false, [TOKEN], { status: 'MFA_REQUIRED', challengeType: 'HARDWARE_TOKEN' }],
    ['the enrolled second factor in enrollment order', [BADGE], true, [PUSH, TOKEN], { status: 'MFA_REQUIRED', challengeType: 'PUSH' }],
    ['the enrolled factor that satisfies MFA alone before the others', [PIN], true, [TOKEN, SMART_CARD], { status: 'MFA_REQUIRED', challengeType: 'SMART_CARD' }],
    ['a first and a second factor', [PIN, TOKEN], true, [TOKEN], { status: 'SUCCESS', challengeType: '' }],
    ['a second factor as the first step, where one is needed', [TOKEN], true, [TOKEN], { status: 'MFA_REQUIRED', challengeType: 'PASSWORD' }],
    ['a second factor alone where nothing is needed', [PUSH], false, [], { status: 'SUCCESS', challengeType: '' }],
    ['two second factors', [TOKEN, PUSH], true, [TOKEN, PUSH], { status: 'SUCCESS', challengeType: '' }],
    ['the same factor twice counts once', [TOKEN, TOKEN], true, [TOKEN], { status: 'MFA_REQUIRED', challengeType: 'PASSWORD' }],
    ['a factor that satisfies MFA alone', [SMART_CARD], true, [SMART_CARD, TOKEN], { status: 'SUCCESS', challengeType: '' }],
  ];

  it.each(cases)('%s', (_name, factors, mfaRequired, enrolled, expected) => {
    expect(nextStep({ factors, mfaRequired, enrolledSecondFactors: enrolled })).toEqual(expected);
  });
});

/** A fake factor: its proof is right when it equals `secret`; it may have a begin that issues a pending nonce. */
class FakeStrategy implements FactorStrategy<string, string, { nonce: string }> {
  readonly guess = 'code' as const;
  readonly pending: PendingSlot<{ nonce: string }>;
  enrolled = false;

  constructor(
    readonly id: string,
    readonly assurance: Assurance,
    readonly spendsAttempt: boolean,
    private readonly secret: string,
  ) {
    this.pending = new PendingSlot(`${id}-pending`);
  }

  async begin(_state: StepState, nonce: string): Promise<BeginOutcome<{ nonce: string }, { nonce: string }>> {
    return { answer: { nonce }, pending: { nonce } };
  }

  async verify(state: StepState, proof: string): Promise<Verdict> {
    if (proof !== this.secret) return { ok: false };
    const pending = this.pending.of(state.tx);
    return { ok: true, consume: pending ? { path: 'nonce', equals: pending.nonce } : undefined };
  }

  wrongProof(attemptsLeft?: number): DomainError {
    return DomainError.unauthenticated('FAKE_WRONG', `wrong (${attemptsLeft ?? '-'})`);
  }

  async isEnrolled(): Promise<boolean> {
    return this.enrolled;
  }
}

const TENANT = '11111111-2222-3333-4444-555555555555';

function setUp(mfaRequired: boolean, policies = new SignInPolicies({ extensionHookTimeoutMs: 50 } as never)) {
  const registry = new FactorRegistry();
  const pin = new FakeStrategy('pin', PIN, false, '1234');
  const token = new FakeStrategy('token', TOKEN, true, '999999');
  registry.register(pin);
  registry.register(token);
  const inserted: AuthTransactionEntity[] = [];
  const transactions = {
    insert: jest.fn(async (_db: unknown, tx: AuthTransactionEntity) => void inserted.push(tx)),
    advance: jest.fn(async () => true),
    setPending: jest.fn(async () => true),
    spendAttempt: jest.fn(async () => 2),
  };
  const engine = new SignInEngine(
    { otpMaxAttempts: 3, transactionTtlSeconds: 300 } as never,
    registry,
    {} as never,
    { grantsOf: async () => ({ roles: ['staff'], permissions: ['doc:read'] }) } as never,
    transactions as never,
    { reserve: async () => ({ cancel: async () => undefined, succeeded: async () => undefined }), count: async () => undefined } as never,
    { noteActivity: () => undefined } as never,
    { start: async () => ({ sessionId: 's1', refreshToken: 'r1' }), issueFor: async () => ({ token: 't1' }) } as never,
    { signIns: { inc: () => undefined } } as never,
    { recordAlone: async () => undefined, record: async () => undefined } as never,
    { emit: async () => undefined } as never,
    policies,
  );
  const db = { transaction: (work: (tx: unknown) => Promise<unknown>) => work(db), afterCommit: (fn: () => void) => fn() };
  const scope = { db, route: { sectorId: 'sector', tenant: { id: TENANT } }, settings: async () => ({ mfaRequired }) };
  const user = { id: 'u1', username: 'ann', email: '' };
  const state = (tx?: AuthTransactionEntity): StepState => ({ scope, tx, user, login: 'ann', clientIp: '' }) as never;
  return { registry, pin, token, transactions, inserted, engine, state };
}

describe('SignInEngine on fake strategies', () => {
  it('records a new first factor and completes where nothing more is needed', async () => {
    const { engine, pin, state, inserted } = setUp(false);
    await expect(engine.verify(pin, state(), '1234')).resolves.toMatchObject({ status: 'SUCCESS', challengeType: '', token: 't1', refreshToken: 'r1' });
    expect(inserted[0]).toMatchObject({ factors: ['PIN'], status: 'SUCCESS' });
  });

  it("asks for the user's enrolled second factor by its strategy's challenge type", async () => {
    const { engine, pin, token, state, inserted } = setUp(false);
    token.enrolled = true;
    await expect(engine.verify(pin, state(), '1234')).resolves.toMatchObject({ status: 'MFA_REQUIRED', challengeType: 'HARDWARE_TOKEN' });
    expect(inserted[0]).toMatchObject({ factors: ['PIN'], status: 'PENDING', pendingChallenge: 'HARDWARE_TOKEN' });
  });

  it('asks for enrollment where MFA is required and the user enrolled nothing', async () => {
    const { engine, pin, state } = setUp(true);
    await expect(engine.verify(pin, state(), '1234')).resolves.toMatchObject({ status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
  });

  it("keeps a begin's pending state under the strategy's slot, and consumes it with the UPDATE that records the factor", async () => {
    const { engine, token, state, transactions } = setUp(true);
    const tx = Object.assign(new AuthTransactionEntity(), { id: 'tx1', factors: ['PIN'], userId: 'u1', data: {} });
    await expect(engine.begin(token, state(tx), 'n1')).resolves.toEqual({ nonce: 'n1' });
    expect(transactions.setPending).toHaveBeenCalledWith(expect.anything(), 'tx1', 'token-pending', { nonce: 'n1' });

    tx.data = { 'token-pending': { nonce: 'n1' } };
    await expect(engine.verify(token, state(tx), '999999')).resolves.toMatchObject({ status: 'SUCCESS', token: 't1' });
    expect(transactions.advance).toHaveBeenCalledWith(expect.anything(), 'tx1', 'PENDING', {
      factors: ['PIN', 'HARDWARE_TOKEN'],
      status: 'SUCCESS',
      pendingChallenge: '',
      complete: true,
      consume: { key: 'token-pending', path: 'nonce', equals: 'n1' },
    });
  });

  it('starts an anonymous flow holding the pending state when the step has no transaction', async () => {
    const { engine, token, state, inserted } = setUp(false);
    const s = state();
    await engine.begin(token, s, 'n2');
    expect(inserted[0]).toMatchObject({ factors: [], status: 'PENDING', pendingChallenge: 'HARDWARE_TOKEN', data: { 'token-pending': { nonce: 'n2' } } });
    expect(s.tx).toBe(inserted[0]);
  });

  it("spends an attempt on a wrong proof where the strategy does, and answers the strategy's refusal", async () => {
    const { engine, token, state, transactions } = setUp(false);
    const tx = Object.assign(new AuthTransactionEntity(), { id: 'tx1', factors: ['PIN'], userId: 'u1', data: {} });
    await expect(engine.verify(token, state(tx), 'nope')).rejects.toMatchObject({ reason: 'FAKE_WRONG', message: 'wrong (2)' });
    expect(transactions.spendAttempt).toHaveBeenCalledWith(expect.anything(), 'tx1');
  });

  it('records a factor by its strategy id without a proof step', async () => {
    const { engine, state } = setUp(false);
    const s = state();
    await expect(engine.recordFactor(s.scope, s.user!, undefined, 'pin', '')).resolves.toMatchObject({ status: 'SUCCESS' });
  });
});

describe('SignInEngine with the sign-in policies of extension modules', () => {
  // The failures they log are expected here.
  beforeAll(() => Logger.overrideLogger(false));

  const withPolicy = (mfaRequired: boolean, policy: (...args: never[]) => unknown) => {
    const policies = new SignInPolicies({ extensionHookTimeoutMs: 50 } as never);
    policies.add('test-policy', policy as never);
    return setUp(mfaRequired, policies);
  };

  it('asks them before a transaction succeeds, with the user, factors and address; a deny records nothing', async () => {
    const seen: unknown[] = [];
    const { engine, pin, state, inserted } = withPolicy(false, (ctx: unknown) => {
      seen.push(ctx);
      return { decision: 'deny', message: 'Not from there.' };
    });
    await expect(engine.verify(pin, { ...state(), clientIp: '203.0.113.9' }, '1234')).rejects.toMatchObject({ code: 7, reason: 'SIGN_IN_DENIED_BY_POLICY', message: 'Not from there.' });
    expect(seen).toEqual([
      {
        tenantID: TENANT,
        sectorID: 'sector',
        user: { id: 'u1', username: 'ann', email: '', isAdmin: undefined, roles: ['staff'], permissions: ['doc:read'] },
        factors: ['PIN'],
        amr: ['pin'],
        clientIp: '203.0.113.9',
        userAgent: '',
      },
    ]);
    expect(inserted).toEqual([]);
  });

  it('asks for a second factor on require_mfa (enrollment when the user has none), and lets the second one complete', async () => {
    const policy = () => ({ decision: 'require_mfa' });
    const first = withPolicy(false, policy);
    await expect(first.engine.verify(first.pin, first.state(), '1234')).resolves.toMatchObject({ status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
    expect(first.inserted[0]).toMatchObject({ factors: ['PIN'], status: 'PENDING' });

    const enrolled = withPolicy(false, policy);
    enrolled.token.enrolled = true;
    await expect(enrolled.engine.verify(enrolled.pin, enrolled.state(), '1234')).resolves.toMatchObject({ status: 'MFA_REQUIRED', challengeType: 'HARDWARE_TOKEN' });
    const tx = Object.assign(new AuthTransactionEntity(), { id: 'tx1', factors: ['PIN'], userId: 'u1', data: {} });
    await expect(enrolled.engine.verify(enrolled.token, enrolled.state(tx), '999999')).resolves.toMatchObject({ status: 'SUCCESS', token: 't1' });
  });

  it('is not asked while the transaction still needs a factor', async () => {
    const policy = jest.fn(() => ({ decision: 'allow' }));
    const { engine, pin, state } = withPolicy(true, policy);
    await expect(engine.verify(pin, state(), '1234')).resolves.toMatchObject({ status: 'MFA_ENROLLMENT_REQUIRED' });
    expect(policy).not.toHaveBeenCalled();
  });

  it('fails safe: a policy that throws or answers late refuses the step with UNAVAILABLE and records nothing', async () => {
    for (const policy of [
      () => {
        throw new Error('boom');
      },
      () => new Promise(() => undefined),
    ]) {
      const { engine, pin, state, inserted } = withPolicy(false, policy);
      await expect(engine.verify(pin, state(), '1234')).rejects.toMatchObject({ code: 14, reason: 'EXTENSION_HOOK_FAILED' });
      expect(inserted).toEqual([]);
    }
  });
});

describe('FactorRegistry', () => {
  it('refuses two strategies with one id, and two that disagree on what one factor is worth', () => {
    const registry = new FactorRegistry();
    registry.register(new FakeStrategy('pin', PIN, false, 'x'));
    expect(() => registry.register(new FakeStrategy('pin', PIN, false, 'y'))).toThrow(/registered as 'pin'/);
    registry.register(new FakeStrategy('pin-by-mail', PIN, false, 'z'));
    expect(() => registry.register(new FakeStrategy('pin-2fa', { ...PIN, secondFactor: true }, false, 'z'))).toThrow(/different assurance/);
    expect(registry.assuranceOf('PIN')).toBe(PIN);
    expect(() => registry.get('unknown')).toThrow(/No factor strategy/);
  });
});
