/**
 * The factors a transaction can record as satisfied. MAGIC_LINK (a single-use
 * link mailed to the user) is a first factor like PASSWORD: where MFA applies, a
 * second factor is still asked for after it.
 */
export type Factor = 'PASSWORD' | 'OTP' | 'WEBAUTHN' | 'SOCIAL' | 'MAGIC_LINK';

type AuthStatus = 'SUCCESS' | 'MFA_REQUIRED' | 'MFA_ENROLLMENT_REQUIRED';
type ChallengeType = '' | 'PASSWORD' | 'OTP' | 'WEBAUTHN' | 'EMAIL_OTP_ENROLLMENT';

export interface PolicyInput {
  /** Factors the transaction has satisfied so far. */
  factors: readonly Factor[];
  /** The sector requires a second factor. */
  mfaRequired: boolean;
  /** Second factors the user has enrolled and verified (none until OTP and passkeys arrive). */
  enrolledSecondFactors: readonly Exclude<Factor, 'PASSWORD'>[];
}

export interface NextStep {
  status: AuthStatus;
  challengeType: ChallengeType;
}

const SECOND_FACTORS: readonly Factor[] = ['OTP', 'WEBAUTHN'];

/**
 * What a transaction needs next, from what it has and what the sector and user
 * require: the one rule every sign-in step asks. A user who enrolled a second
 * factor must use it even where the sector does not require MFA.
 *
 * A recorded passkey (WEBAUTHN) satisfies MFA on its own: it is possession of the
 * authenticator plus the biometric or PIN that unlocked it (the passkey strategy
 * requires user verification when the passkey is the first factor), and after a
 * password it is the second factor that completes MFA.
 */
export function nextStep(input: PolicyInput): NextStep {
  const distinct = new Set(input.factors);
  if (distinct.has('WEBAUTHN')) return { status: 'SUCCESS', challengeType: '' };
  const hasSecond = [...distinct].some((f) => SECOND_FACTORS.includes(f));
  const needsSecond = input.mfaRequired || input.enrolledSecondFactors.length > 0;
  if (!needsSecond || (hasSecond && distinct.size >= 2)) return { status: 'SUCCESS', challengeType: '' };
  // A code or passkey used as the first step still needs a second, different factor.
  if (hasSecond) return { status: 'MFA_REQUIRED', challengeType: 'PASSWORD' };
  if (input.enrolledSecondFactors.length === 0) return { status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' };
  const preferred = input.enrolledSecondFactors.includes('WEBAUTHN') ? 'WEBAUTHN' : 'OTP';
  return { status: 'MFA_REQUIRED', challengeType: preferred };
}
