import { randomInt } from 'node:crypto';

/** MAC purpose of one-time codes: a code is stored as HMAC(key from MASTER_KEY, "<flow id>:<code>"). */
export const OTP_CODE_MAC = 'otp-code';
/** Seal purpose of TOTP secrets. */
export const TOTP_SECRET_SEAL = 'totp-secret';

/** A 6-digit code from the CSPRNG. */
export function newOtpCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/** What the MAC of a code binds it to: the flow (transaction or registration) it was sent for. */
export function codeMacInput(flowId: string, code: string): string {
  return `${flowId}:${code.trim()}`;
}

/** A destination as lists show it: `b•••@example.com`, `+1•••••••0100`. */
export function maskDestination(type: string, destination: string): string {
  if (type === 'email') {
    const at = destination.lastIndexOf('@');
    if (at <= 0) return '•••';
    return `${destination[0]}•••${destination.slice(at)}`;
  }
  if (type === 'sms') return destination.length <= 6 ? '•••' : `${destination.slice(0, 2)}${'•'.repeat(destination.length - 6)}${destination.slice(-4)}`;
  return '';
}
