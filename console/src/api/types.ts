/** Shapes of the API's answers that more than one part of the app reads (docs/api.md). */

export interface Address {
  formatted: string;
  streetAddress: string;
  locality: string;
  region: string;
  postalCode: string;
  country: string;
}

export interface UserProfile {
  sub: string;
  name: string;
  givenName: string;
  familyName: string;
  middleName: string;
  nickname: string;
  preferredUsername: string;
  profile: string;
  picture: string;
  website: string;
  email: string;
  emailVerified: boolean;
  /** The user's new email waiting for confirmation by the link mailed to it ('' when none). */
  pendingEmail?: string;
  gender: string;
  birthdate: string;
  zoneinfo: string;
  locale: string;
  phoneNumber: string;
  phoneNumberVerified: boolean;
  address: Address;
  updatedAt: string;
  createdAt: string;
}
