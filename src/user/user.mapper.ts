import { unixSeconds } from '../common/wire/wire';
import { UserListItem, UserProfileInput, UserProfileResponse } from './dto/user.dto';
import { UserAddress, UserEntity } from './user.entity';
import type { UserListRow } from './user-list.query';

type InviteStatus = '' | 'pending' | 'active' | 'expired';

function inviteStatusOf(u: Pick<UserEntity, 'inviteExpiresAt' | 'inviteAcceptedAt'>, now = Date.now()): InviteStatus {
  if (!u.inviteExpiresAt) return '';
  if (u.inviteAcceptedAt) return 'active';
  return u.inviteExpiresAt.getTime() <= now ? 'expired' : 'pending';
}

const ADDRESS_KEYS = ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country'] as const;

function address(a: UserAddress | null | undefined) {
  const out = {} as Record<(typeof ADDRESS_KEYS)[number], string>;
  for (const k of ADDRESS_KEYS) out[k] = a?.[k] ?? '';
  return out;
}

/** The profile on the wire; `pendingEmail` is the user's new address waiting for confirmation ('' when none). */
export function toUserProfile(u: UserEntity, pendingEmail = ''): UserProfileResponse {
  return {
    sub: u.id,
    name: u.name,
    givenName: u.givenName,
    familyName: u.familyName,
    middleName: u.middleName,
    nickname: u.nickname,
    preferredUsername: u.preferredUsername,
    profile: u.profile,
    picture: u.picture,
    website: u.website,
    email: u.email,
    emailVerified: u.emailVerified,
    pendingEmail,
    gender: u.gender,
    birthdate: u.birthdate,
    zoneinfo: u.zoneinfo,
    locale: u.locale,
    phoneNumber: u.phoneNumber,
    phoneNumberVerified: u.phoneNumberVerified,
    address: address(u.address),
    disabled: u.disabledAt !== null,
    updatedAt: unixSeconds(u.updatedAt),
    createdAt: unixSeconds(u.createdAt),
  };
}

export function toUserListItem(u: UserListRow): UserListItem {
  return {
    sub: u.id,
    email: u.email,
    name: u.name,
    emailVerified: u.emailVerified,
    phoneVerified: u.phoneNumberVerified,
    createdAt: unixSeconds(u.createdAt),
    updatedAt: unixSeconds(u.updatedAt),
    isAdmin: u.isAdmin,
    disabled: u.disabled,
    inviteStatus: inviteStatusOf(u),
  };
}

const PROFILE_TEXT_FIELDS = [
  'name',
  'givenName',
  'familyName',
  'middleName',
  'nickname',
  'preferredUsername',
  'profile',
  'picture',
  'website',
  'email',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'phoneNumber',
] as const;

/** The entity columns a profile input sets (only the fields present; the address merges per key). */
export function profilePatch(input: UserProfileInput | undefined, current?: UserAddress): Partial<UserEntity> {
  const patch: Partial<UserEntity> = {};
  if (!input) return patch;
  for (const field of PROFILE_TEXT_FIELDS) {
    const value = input[field];
    if (value !== undefined) patch[field] = field === 'email' ? value.trim() : value;
  }
  if (input.emailVerified !== undefined) patch.emailVerified = input.emailVerified;
  if (input.phoneNumberVerified !== undefined) patch.phoneNumberVerified = input.phoneNumberVerified;
  if (input.address) {
    const merged: UserAddress = { ...(current ?? {}) };
    for (const k of ADDRESS_KEYS) if (input.address[k] !== undefined) merged[k] = input.address[k];
    patch.address = merged;
  }
  return patch;
}
