/**
 * The factors a transaction can record as satisfied (the names stored in its
 * `factors` and reported in metrics and audit events). Each is recorded by the
 * strategies that declare it (`FactorStrategy.assurance.factor`); the policy
 * reads what a factor is worth from that metadata, never from its name.
 */
export type Factor = string;

type AuthStatus = 'SUCCESS' | 'MFA_REQUIRED' | 'MFA_ENROLLMENT_REQUIRED';
/** The challenge a pending transaction waits for ('' when none): a wire value (`challengeType`). */
type ChallengeType = string;

/** The first factor asked for after a second factor used as the first step. */
const FIRST_FACTOR_CHALLENGE: ChallengeType = 'PASSWORD';
/** The enrollment asked for where MFA applies and the user has no second factor. */
const ENROLLMENT_CHALLENGE: ChallengeType = 'EMAIL_OTP_ENROLLMENT';

/** What a factor is worth to the policy: declared by the strategies that record it. */
export interface Assurance {
  /** The factor a right proof records on the transaction. */
  factor: Factor;
  /** What the proof shows: something known, something held, another provider's word, access to a mailbox. */
  kind: 'knowledge' | 'possession' | 'federated' | 'link';
  /** Counts as the second factor that completes MFA after a different first one. */
  secondFactor: boolean;
  /** Completes the sign-in on its own, whatever MFA requires (a user-verified passkey). */
  satisfiesMfaAlone: boolean;
  /** The challenge a transaction asks for when this is the user's enrolled second factor. */
  challengeType?: ChallengeType;
  /** Its authentication method references (RFC 8176), as ID tokens name how the user signed in. */
  amr: readonly string[];
}

export interface PolicyInput {
  /** What the factors the transaction has satisfied so far are worth. */
  factors: readonly Assurance[];
  /** The sector requires a second factor. */
  mfaRequired: boolean;
  /** What the second factors the user has enrolled and verified are worth. */
  enrolledSecondFactors: readonly Assurance[];
}

export interface NextStep {
  status: AuthStatus;
  challengeType: ChallengeType;
}

/**
 * What a transaction needs next, from what it has and what the sector and user
 * require: the one rule every sign-in step asks. A user who enrolled a second
 * factor must use it even where the sector does not require MFA.
 *
 * A factor that satisfies MFA alone (a passkey: possession of the authenticator
 * plus the biometric or PIN that unlocked it — the passkey strategy requires user
 * verification when the passkey is the first factor) completes the sign-in on its
 * own; after a first factor, a second factor completes MFA. Of several enrolled
 * second factors the strongest is asked for: one that satisfies MFA alone before
 * the others, else the first enrolled.
 */
export function nextStep(input: PolicyInput): NextStep {
  const distinct = [...new Map(input.factors.map((a) => [a.factor, a])).values()];
  if (distinct.some((a) => a.satisfiesMfaAlone)) return { status: 'SUCCESS', challengeType: '' };
  const hasSecond = distinct.some((a) => a.secondFactor);
  const needsSecond = input.mfaRequired || input.enrolledSecondFactors.length > 0;
  if (!needsSecond || (hasSecond && distinct.length >= 2)) return { status: 'SUCCESS', challengeType: '' };
  // A second factor used as the first step still needs a different, first factor.
  if (hasSecond) return { status: 'MFA_REQUIRED', challengeType: FIRST_FACTOR_CHALLENGE };
  if (input.enrolledSecondFactors.length === 0) return { status: 'MFA_ENROLLMENT_REQUIRED', challengeType: ENROLLMENT_CHALLENGE };
  const preferred = input.enrolledSecondFactors.find((a) => a.satisfiesMfaAlone) ?? input.enrolledSecondFactors[0];
  return { status: 'MFA_REQUIRED', challengeType: preferred.challengeType ?? '' };
}

/**
 * How a completed sign-in authenticated the user, as RFC 8176 method references:
 * every factor's own, and `mfa` when two factors did or one that counts as MFA on
 * its own (a user-verified passkey).
 */
export function authenticationMethods(factors: readonly Assurance[]): string[] {
  const methods = new Set(factors.flatMap((f) => f.amr));
  if (factors.length > 1 || factors.some((f) => f.satisfiesMfaAlone)) methods.add('mfa');
  return [...methods];
}
