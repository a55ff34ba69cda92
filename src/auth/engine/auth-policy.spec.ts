import { nextStep } from './auth-policy';

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
});
