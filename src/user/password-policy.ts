import { FieldViolation } from '../common/errors/domain-error';

const PASSWORD_MIN_LENGTH = 8;
/** bcrypt reads at most 72 bytes; longer passwords are refused rather than silently truncated. */
export const PASSWORD_MAX_BYTES = 72;

/** The password policy for every password a user sets; undefined when the password is acceptable. */
export function passwordViolation(field: string, password: string, email?: string): FieldViolation | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    return { field, description: `must be at least ${PASSWORD_MIN_LENGTH} characters` };
  }
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
    return { field, description: `must be at most ${PASSWORD_MAX_BYTES} bytes (UTF-8)` };
  }
  if (email && password.trim().toLowerCase() === email.trim().toLowerCase()) {
    return { field, description: 'must not be the email address' };
  }
  return undefined;
}
