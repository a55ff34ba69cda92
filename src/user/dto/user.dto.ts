import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsInt, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { QueryBoolean, QueryInt } from '../../common/validation/validation';

const TEXT_MAX = 500;
const URL_OR_EMPTY = /^(|https?:\/\/\S+)$/;
const E164_OR_EMPTY = /^(|\+[1-9]\d{1,14})$/;
const BIRTHDATE_OR_EMPTY = /^(|\d{4}|\d{4}-\d{2}-\d{2}|0000-\d{2}-\d{2})$/;

export class AddressDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) formatted?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) streetAddress?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) locality?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) region?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) postalCode?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) country?: string;
}

/** The writable OIDC profile fields (request side); `sub`, `createdAt` and `updatedAt` are ignored if sent. */
export class UserProfileInput {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) name?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) givenName?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) familyName?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) middleName?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) nickname?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_MAX) preferredUsername?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) @Matches(URL_OR_EMPTY, { message: 'must be an http(s) URL or empty' }) profile?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) @Matches(URL_OR_EMPTY, { message: 'must be an http(s) URL or empty' }) picture?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) @Matches(URL_OR_EMPTY, { message: 'must be an http(s) URL or empty' }) website?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(320) @IsEmail({}, { message: 'must be an email address' }) email?: string;
  @ApiPropertyOptional({ description: 'Admins only.' }) @IsOptional() @IsBoolean() emailVerified?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) gender?: string;
  @ApiPropertyOptional({ description: 'YYYY-MM-DD, YYYY or 0000-MM-DD' })
  @IsOptional() @IsString() @Matches(BIRTHDATE_OR_EMPTY, { message: 'must be YYYY-MM-DD, YYYY, 0000-MM-DD or empty' }) birthdate?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) zoneinfo?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(35) @Matches(/^(|[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*)$/, { message: 'must be a BCP 47 language tag or empty' }) locale?: string;
  @ApiPropertyOptional({ description: 'E.164, e.g. +14155550100' })
  @IsOptional() @IsString() @Matches(E164_OR_EMPTY, { message: 'must be an E.164 number such as +14155550100, or empty' }) phoneNumber?: string;
  @ApiPropertyOptional({ description: 'Admins only.' }) @IsOptional() @IsBoolean() phoneNumberVerified?: boolean;
  @ApiPropertyOptional({ type: AddressDto }) @IsOptional() @ValidateNested() @Type(() => AddressDto) address?: AddressDto;
}

export class AddressResponse {
  @ApiProperty() formatted: string;
  @ApiProperty() streetAddress: string;
  @ApiProperty() locality: string;
  @ApiProperty() region: string;
  @ApiProperty() postalCode: string;
  @ApiProperty() country: string;
}

export class UserProfileResponse {
  @ApiProperty() sub: string;
  @ApiProperty() name: string;
  @ApiProperty() givenName: string;
  @ApiProperty() familyName: string;
  @ApiProperty() middleName: string;
  @ApiProperty() nickname: string;
  @ApiProperty() preferredUsername: string;
  @ApiProperty() profile: string;
  @ApiProperty() picture: string;
  @ApiProperty() website: string;
  @ApiProperty() email: string;
  @ApiProperty() emailVerified: boolean;
  @ApiProperty({ description: "The user's new email address waiting for confirmation by the link mailed to it ('' when none)." }) pendingEmail: string;
  @ApiProperty() gender: string;
  @ApiProperty() birthdate: string;
  @ApiProperty() zoneinfo: string;
  @ApiProperty() locale: string;
  @ApiProperty() phoneNumber: string;
  @ApiProperty() phoneNumberVerified: boolean;
  @ApiProperty({ type: AddressResponse }) address: AddressResponse;
  @ApiProperty({ description: 'Disabled by an admin: cannot sign in.' }) disabled: boolean;
  @ApiProperty({ type: 'string', format: 'int64' }) updatedAt: string;
  @ApiProperty({ type: 'string', format: 'int64' }) createdAt: string;
}

export class CreateUserDto {
  @ApiProperty() @IsString() @MaxLength(320) @IsEmail({}, { message: 'must be an email address' }) email: string;
  @ApiPropertyOptional({ description: 'Defaults to the email; unique in the sector (case-insensitive).' })
  @IsOptional() @IsString() @Matches(/^[^\s]{1,320}$/, { message: 'must be 1 to 320 characters without spaces' }) username?: string;
  @ApiPropertyOptional({ description: 'Without a password the user is invited by mail.' })
  @IsOptional() @IsString() password?: string;
  @ApiPropertyOptional({ type: UserProfileInput }) @IsOptional() @ValidateNested() @Type(() => UserProfileInput) profile?: UserProfileInput;
  @ApiPropertyOptional({ description: 'Admins only.' }) @IsOptional() @IsBoolean() isAdmin?: boolean;
}

export class UpdateUserDto {
  @ApiPropertyOptional({ type: UserProfileInput }) @IsOptional() @ValidateNested() @Type(() => UserProfileInput) profile?: UserProfileInput;
  @ApiPropertyOptional({ description: "The user's sector (informational; moving users between sectors is not supported)." })
  @IsOptional() @IsString() sectorID?: string;
  @ApiPropertyOptional({ description: 'Desired admin state; applied only with setAdminExplicitly.' }) @IsOptional() @IsBoolean() isAdmin?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() setAdminExplicitly?: boolean;
  @ApiPropertyOptional({
    description:
      'Disable (true) or enable (false) the user: admins of the user’s sector or the default sector, or an API token for a user who is not an admin; never the user themselves, never the last enabled admin of the default sector. A disabled user cannot sign in and loses every session and token at once.',
  })
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;
  @ApiPropertyOptional({
    description:
      'Users changing their own email or phone number: the current password, when their sign-in is older than five minutes (never stored or logged).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  currentPassword?: string;
}

export class UpdateUserResponse {
  @ApiProperty() sub: string;
  @ApiProperty() username: string;
  @ApiProperty() sectorID: string;
  @ApiPropertyOptional({ description: 'After users change their own email: the new address, waiting until the link mailed to it is followed.' })
  pendingEmail?: string;
}

export class UserRefResponse {
  @ApiProperty() sub: string;
}

export class ResendInviteResponse {
  @ApiProperty() sub: string;
  @ApiProperty({ example: 'pending' }) inviteStatus: string;
  @ApiProperty({ type: 'string', format: 'int64' }) inviteExpiresAt: string;
}

const USER_SORTS = ['name', 'email', 'created_at', 'updated_at'] as const;
export type UserSort = (typeof USER_SORTS)[number];

export class ListUsersQuery {
  @ApiPropertyOptional({ type: 'integer', format: 'int32' }) @IsOptional() @QueryInt() @IsInt() pageSize?: number;
  @ApiPropertyOptional({ type: 'integer', format: 'int32' }) @IsOptional() @QueryInt() @IsInt() page?: number;
  @ApiPropertyOptional({ description: 'Case-insensitive substring of name, email or username.' })
  @IsOptional() @IsString() @MaxLength(200) searchTerm?: string;
  @ApiPropertyOptional({ description: 'Exact email, case-insensitive.' }) @IsOptional() @IsString() @MaxLength(320) filterEmail?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] }) @IsOptional() @IsIn(['true', 'false']) filterVerified?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Disabled users only (true), or enabled users only (false).' })
  @IsOptional()
  @IsIn(['true', 'false'])
  filterDisabled?: string;
  @ApiPropertyOptional({ description: 'Users holding the role of this name only.', maxLength: 63 })
  @IsOptional()
  @IsString()
  @MaxLength(63)
  filterRole?: string;
  @ApiPropertyOptional({ enum: USER_SORTS }) @IsOptional() @IsIn(USER_SORTS) sortBy?: UserSort;
  @ApiPropertyOptional() @IsOptional() @QueryBoolean() @IsBoolean() sortDesc?: boolean;
  @ApiPropertyOptional({
    description:
      'For a client that only pages forward: a searched or email-filtered list is then not counted, and `totalCount` is a lower bound — ' +
      'the users up to the end of this page, plus one when another page follows (so `totalPages` is `currentPage + 1` while more follow). ' +
      'Unsearched lists stay exactly counted. Default false: `totalCount` is exact.',
  })
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  skipTotalCount?: boolean;
}

export class UserListItem {
  @ApiProperty() sub: string;
  @ApiProperty() email: string;
  @ApiProperty() name: string;
  @ApiProperty() emailVerified: boolean;
  @ApiProperty() phoneVerified: boolean;
  @ApiProperty({ type: 'string', format: 'int64' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'int64' }) updatedAt: string;
  @ApiProperty() isAdmin: boolean;
  @ApiProperty({ description: 'Disabled by an admin: cannot sign in.' }) disabled: boolean;
  @ApiProperty({ enum: ['pending', 'active', 'expired', ''] }) inviteStatus: string;
}

export class ListUsersResponse {
  @ApiProperty({ type: [UserListItem] }) users: UserListItem[];
  @ApiProperty({ type: 'integer', format: 'int32' }) totalCount: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) totalPages: number;
  @ApiProperty({ type: 'integer', format: 'int32' }) currentPage: number;
}

export class UserAccessQuery {
  @ApiPropertyOptional({ description: "Self-access proof: the transactionID of the user's own sign-in that succeeded in the last 15 minutes." })
  @IsOptional() @IsString() @MaxLength(128) transactionID?: string;
}

export class ChangePasswordDto {
  @ApiPropertyOptional({ description: "The current password: required when users change their own password; admins may omit it." })
  @IsOptional() @IsString() @MaxLength(1024) currentPassword?: string;
  @ApiProperty({ description: 'At least 8 characters, at most 72 bytes, not the email.' }) @IsString() newPassword: string;
}
