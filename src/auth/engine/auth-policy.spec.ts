import { Assurance, authenticationMethods, NextStep, nextStep as policyNextStep } from './auth-policy';

/**
 * What the factors of this service are worth, as their strategies declare it
 * (`assurance` of the password, one-time-code, passkey, social and magic-link
 * strategies): the cases below name factors, the policy reads only this.
 */
const KNOWN: Record<string, Assurance> = {
  PASSWORD: { factor: 'PASSWORD', kind: 'knowledge', secondFactor: false, satisfiesMfaAlone: false, amr: ['pwd'] },
  OTP: { factor: 'OTP', kind: 'possession', secondFactor: true, satisfiesMfaAlone: false, challengeType: 'OTP', amr: ['otp'] },
  WEBAUTHN: { factor: 'WEBAUTHN', kind: 'possession', secondFactor: true, satisfiesMfaAlone: true, challengeType: 'WEBAUTHN', amr: ['hwk'] },
  SOCIAL: { factor: 'SOCIAL', kind: 'federated', secondFactor: false, satisfiesMfaAlone: false, amr: ['fed'] },
  MAGIC_LINK: { factor: 'MAGIC_LINK', kind: 'link', secondFactor: false, satisfiesMfaAlone: false, amr: ['otp'] },
};

function nextStep(input: { factors: readonly string[]; mfaRequired: boolean; enrolledSecondFactors: readonly string[] }): NextStep {
  return policyNextStep({
    factors: input.factors.map((f) => KNOWN[f]),
    mfaRequired: input.mfaRequired,
    enrolledSecondFactors: input.enrolledSecondFactors.map((f) => KNOWN[f]),
  });
}

describe('nextStep', () => {
  it('succeeds after the password when the sector does not require MFA and the user enrolled nothing', () => {
    expect(nextStep({ factors: ['PASSWORD'], mfaRequired: false, enrolledSecondFactors: [] })).toEqual({ status: 'SUCCESS', challengeType: '' });
  });

  it('asks for enrollment when MFA is required and the user has no second factor', () => {
    expect(nextStep({ factors: ['PASSWORD'], mfaRequired: true, enrolledSecondFactors: [] })).toEqual({
      status: 'MFA_ENROLLMENT_REQUIRED',
      challengeType: 'EMAIL_OTP_ENROLLMENT',
    });
  });

  it('asks for the enrolled factor, even where the sector does not require MFA', () => {
    expect(nextStep({ factors: ['PASSWORD'], mfaRequired: false, enrolledSecondFactors: ['OTP'] })).toEqual({ status: 'MFA_REQUIRED', challengeType: 'OTP' });
    expect(nextStep({ factors: ['PASSWORD'], mfaRequired: true, enrolledSecondFactors: ['OTP', 'WEBAUTHN'] }).challengeType).toBe('WEBAUTHN');
  });

  it('asks for the password when a code was the first step and a second factor is needed', () => {
    expect(nextStep({ factors: ['OTP'], mfaRequired: true, enrolledSecondFactors: ['OTP'] })).toEqual({ status: 'MFA_REQUIRED', challengeType: 'PASSWORD' });
    expect(nextStep({ factors: ['OTP'], mfaRequired: false, enrolledSecondFactors: [] }).status).toBe('SUCCESS');
  });

  it('succeeds once a second factor is satisfied', () => {
    expect(nextStep({ factors: ['PASSWORD', 'OTP'], mfaRequired: true, enrolledSecondFactors: ['OTP'] }).status).toBe('SUCCESS');
  });

  describe('passkeys (WEBAUTHN)', () => {
    it('a passkey alone satisfies MFA, where the sector requires it and where the user enrolled factors', () => {
      expect(nextStep({ factors: ['WEBAUTHN'], mfaRequired: true, enrolledSecondFactors: ['WEBAUTHN'] })).toEqual({ status: 'SUCCESS', challengeType: '' });
      expect(nextStep({ factors: ['WEBAUTHN'], mfaRequired: true, enrolledSecondFactors: ['OTP', 'WEBAUTHN'] })).toEqual({ status: 'SUCCESS', challengeType: '' });
      expect(nextStep({ factors: ['WEBAUTHN'], mfaRequired: false, enrolledSecondFactors: [] })).toEqual({ status: 'SUCCESS', challengeType: '' });
    });

    it('a passkey after a password (or a code) completes MFA', () => {
      expect(nextStep({ factors: ['PASSWORD', 'WEBAUTHN'], mfaRequired: true, enrolledSecondFactors: ['WEBAUTHN'] })).toEqual({ status: 'SUCCESS', challengeType: '' });
      expect(nextStep({ factors: ['OTP', 'WEBAUTHN'], mfaRequired: true, enrolledSecondFactors: ['OTP', 'WEBAUTHN'] })).toEqual({ status: 'SUCCESS', challengeType: '' });
    });

    it('asks for the passkey after the password of a user who has one (also where the sector does not require MFA)', () => {
      expect(nextStep({ factors: ['PASSWORD'], mfaRequired: false, enrolledSecondFactors: ['WEBAUTHN'] })).toEqual({ status: 'MFA_REQUIRED', challengeType: 'WEBAUTHN' });
      expect(nextStep({ factors: ['PASSWORD'], mfaRequired: true, enrolledSecondFactors: ['WEBAUTHN'] })).toEqual({ status: 'MFA_REQUIRED', challengeType: 'WEBAUTHN' });
    });

    it('a code first still asks for the password, not a passkey', () => {
      expect(nextStep({ factors: ['OTP'], mfaRequired: true, enrolledSecondFactors: ['OTP', 'WEBAUTHN'] })).toEqual({ status: 'MFA_REQUIRED', challengeType: 'PASSWORD' });
    });
  });

  describe('magic links (MAGIC_LINK, a first factor like the password)', () => {
    it('succeeds alone where no second factor applies', () => {
      expect(nextStep({ factors: ['MAGIC_LINK'], mfaRequired: false, enrolledSecondFactors: [] })).toEqual({ status: 'SUCCESS', challengeType: '' });
    });

    it('asks for the second factor (or its enrollment) exactly as after a password', () => {
      for (const [mfaRequired, enrolled] of [[true, []], [false, ['OTP']], [true, ['OTP']], [true, ['OTP', 'WEBAUTHN']], [false, ['WEBAUTHN']]] as const) {
        const input = { mfaRequired, enrolledSecondFactors: enrolled };
        expect(nextStep({ factors: ['MAGIC_LINK'], ...input })).toEqual(nextStep({ factors: ['PASSWORD'], ...input }));
      }
    });

    it('succeeds once the second factor follows it', () => {
      expect(nextStep({ factors: ['MAGIC_LINK', 'OTP'], mfaRequired: true, enrolledSecondFactors: ['OTP'] }).status).toBe('SUCCESS');
    });
  });
});

describe('authenticationMethods (RFC 8176 references of a completed sign-in)', () => {
  const of = (...factors: string[]) => authenticationMethods(factors.map((f) => KNOWN[f]));
  it('names each factor once, and mfa for two factors or a user-verified passkey', () => {
    expect(of('PASSWORD')).toEqual(['pwd']);
    expect(of('SOCIAL')).toEqual(['fed']);
    expect(of('PASSWORD', 'OTP')).toEqual(['pwd', 'otp', 'mfa']);
    expect(of('MAGIC_LINK', 'OTP')).toEqual(['otp', 'mfa']);
    expect(of('WEBAUTHN')).toEqual(['hwk', 'mfa']);
  });
});
