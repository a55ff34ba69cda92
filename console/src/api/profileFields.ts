/**
 * The OpenID Connect profile claims a user's profile holds, in the order the forms
 * show them: the admin's user form and the user's own profile page. `autoComplete`
 * is for one's own profile (the admin form turns autofill off: it edits somebody
 * else).
 */

export type ProfileTextKey =
  | 'name'
  | 'givenName'
  | 'familyName'
  | 'middleName'
  | 'nickname'
  | 'preferredUsername'
  | 'email'
  | 'phoneNumber'
  | 'locale'
  | 'zoneinfo'
  | 'birthdate'
  | 'gender'
  | 'website'
  | 'picture'
  | 'profile';

export type AddressKey = 'formatted' | 'streetAddress' | 'locality' | 'region' | 'postalCode' | 'country';

export const PROFILE_FIELDS: Array<{ key: ProfileTextKey; label: string; type?: string; hint?: string; autoComplete?: string }> = [
  { key: 'name', label: 'Full name', autoComplete: 'name' },
  { key: 'givenName', label: 'Given name', autoComplete: 'given-name' },
  { key: 'middleName', label: 'Middle name', autoComplete: 'additional-name' },
  { key: 'familyName', label: 'Family name', autoComplete: 'family-name' },
  { key: 'nickname', label: 'Nickname', autoComplete: 'nickname' },
  { key: 'preferredUsername', label: 'Preferred username', autoComplete: 'username' },
  { key: 'email', label: 'Email', type: 'email', autoComplete: 'email' },
  { key: 'phoneNumber', label: 'Phone number', type: 'tel', hint: 'E.164, e.g. +14155550100.', autoComplete: 'tel' },
  { key: 'profile', label: 'Profile page', type: 'url', autoComplete: 'url', hint: 'An http(s) address.' },
  { key: 'picture', label: 'Picture', type: 'url', autoComplete: 'photo', hint: 'An http(s) address of an image.' },
  { key: 'website', label: 'Website', type: 'url', autoComplete: 'url' },
  { key: 'gender', label: 'Gender', autoComplete: 'sex' },
  { key: 'birthdate', label: 'Birth date', autoComplete: 'bday', hint: 'YYYY-MM-DD, YYYY, or 0000-MM-DD.' },
  { key: 'zoneinfo', label: 'Time zone', hint: 'e.g. Europe/Paris.' },
  { key: 'locale', label: 'Language', autoComplete: 'language', hint: 'A language tag such as en-GB.' },
];

export const ADDRESS_FIELDS: Array<{ key: AddressKey; label: string; autoComplete: string }> = [
  { key: 'streetAddress', label: 'Street address', autoComplete: 'street-address' },
  { key: 'locality', label: 'City', autoComplete: 'address-level2' },
  { key: 'region', label: 'Region', autoComplete: 'address-level1' },
  { key: 'postalCode', label: 'Postal code', autoComplete: 'postal-code' },
  { key: 'country', label: 'Country', autoComplete: 'country-name' },
  { key: 'formatted', label: 'Full address as printed', autoComplete: 'off' },
];
