/** The OIDC profile fields an admin edits (docs/api.md, Ids and names: profile fields). */

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
  { key: 'name', label: 'Full name', autoComplete: 'off' },
  { key: 'givenName', label: 'Given name' },
  { key: 'familyName', label: 'Family name' },
  { key: 'middleName', label: 'Middle name' },
  { key: 'nickname', label: 'Nickname' },
  { key: 'preferredUsername', label: 'Preferred username' },
  { key: 'email', label: 'Email', type: 'email' },
  { key: 'phoneNumber', label: 'Phone number', type: 'tel', hint: 'E.164, e.g. +14155550100.' },
  { key: 'locale', label: 'Locale', hint: 'A BCP 47 tag, e.g. en-GB.' },
  { key: 'zoneinfo', label: 'Time zone', hint: 'e.g. Europe/Paris.' },
  { key: 'birthdate', label: 'Birth date', hint: 'YYYY-MM-DD, YYYY or 0000-MM-DD.' },
  { key: 'gender', label: 'Gender' },
  { key: 'website', label: 'Website', type: 'url' },
  { key: 'picture', label: 'Picture URL', type: 'url' },
  { key: 'profile', label: 'Profile page URL', type: 'url' },
];

export const ADDRESS_FIELDS: Array<{ key: AddressKey; label: string }> = [
  { key: 'formatted', label: 'Formatted address' },
  { key: 'streetAddress', label: 'Street address' },
  { key: 'locality', label: 'Locality' },
  { key: 'region', label: 'Region' },
  { key: 'postalCode', label: 'Postal code' },
  { key: 'country', label: 'Country' },
];
