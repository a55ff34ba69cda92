/**
 * TOTP through otplib 13 (ESM-only: loaded with a native dynamic import, see
 * docs/adr/0001-toolchain.md). RFC 6238, SHA-1, 6 digits, 30-second steps, one step of
 * clock drift either way.
 */
type Otplib = typeof import('otplib', { with: { 'resolution-mode': 'import' } });
let loaded: Promise<Otplib> | undefined;
const otplib = (): Promise<Otplib> => (loaded ??= import('otplib'));

const TOTP_STEP_SECONDS = 30;

export async function newTotpSecret(): Promise<string> {
  return (await otplib()).generateSecret();
}

export async function totpUri(secret: string, issuer: string, label: string): Promise<string> {
  return (await otplib()).generateURI({ issuer, label, secret });
}

/** The time step a code matches (within one step of drift), or undefined. */
export async function matchTotp(secret: string, code: string): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  const result = await (await otplib()).verify({ secret, token: code, epochTolerance: TOTP_STEP_SECONDS });
  return result.valid ? (result as { timeStep: number }).timeStep : undefined;
}
