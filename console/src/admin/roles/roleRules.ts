/**
 * The API's rules for roles (PutRoleDto and the role name in the path), checked in
 * the browser too so a mistake shows beside its field before any request. The
 * service still decides: its field violations are shown the same way.
 */

import { i18n } from '../../i18n';

/** A role's name: lower case, starting with a letter, up to 63 characters of letters, digits and `_ . : -`. */
const ROLE_NAME = /^[a-z][a-z0-9_.:-]{0,62}$/;
export const MAX_DESCRIPTION = 1000;
export const MAX_PERMISSIONS = 100;
const MAX_PERMISSION_LENGTH = 128;

/** What is wrong with a new role's name, in words; true when nothing is. */
export function checkRoleName(name: string): true | string {
  if (name === '') return i18n.t('roles:rules.nameNeeded');
  if (ROLE_NAME.test(name)) return true;
  if (name.length > 63) return i18n.t('roles:rules.nameTooLong', { n: name.length });
  if (!/^[a-z]/.test(name)) return i18n.t('roles:rules.nameStart');
  const wrong = [...new Set(name.replace(/[a-z0-9_.:-]/g, ''))].map((c) => (c === ' ' ? i18n.t('roles:rules.aSpace') : `“${c}”`));
  return i18n.t('roles:rules.nameChars', { wrong: wrong.join(', ') });
}

/** The permissions of a one-per-line text: each line trimmed, blank lines and repeats dropped, in order. */
export function permissionLines(text: string): string[] {
  return [...new Set(text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean))];
}

/** What is wrong with a one-per-line list of permissions, in words; true when nothing is. */
export function checkPermissions(text: string): true | string {
  const permissions = permissionLines(text);
  if (permissions.length > MAX_PERMISSIONS) return i18n.t('roles:rules.tooMany', { max: MAX_PERMISSIONS, n: permissions.length });
  for (const p of permissions) {
    if ([...p].length > MAX_PERMISSION_LENGTH) return i18n.t('roles:rules.tooLong', { start: p.slice(0, 30), max: MAX_PERMISSION_LENGTH });
    if (/\p{C}/u.test(p)) return i18n.t('roles:rules.invisible', { permission: p });
  }
  return true;
}
