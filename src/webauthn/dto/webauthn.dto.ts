import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';

/** Binary fields travel as base64url (standard base64 is accepted too, padded or not). */
const B64 = 'base64url (standard base64 accepted, padded or not)';
const CLIENT_DATA_MAX = 16_384;
const ATTESTATION_MAX = 131_072;
const ID_MAX = 2_048;
const KEY_NAME_MAX = 200;

// ---- shared pieces of the options ----

export class CredentialDescriptorResponse {
  @ApiProperty({ enum: ['public-key'] }) type: string;
  @ApiProperty({ description: `Credential ID, ${B64}.` }) id: string;
  @ApiProperty({ type: [String], description: 'Transports the authenticator reported (usb, nfc, ble, hybrid, internal, …); [] when unknown.' }) transports: string[];
}

// ---- operation 14: sign-in begin ----

export class WebAuthnLoginBeginDto {
  @ApiPropertyOptional({ description: 'Username or email: the passkeys of that login. Omit it (and transactionID) for a usernameless (discoverable) sign-in.' })
  @IsOptional() @IsString() @MaxLength(320) username?: string;
  @ApiPropertyOptional({ description: 'Continue this sign-in (e.g. the passkey as the second factor after the password).' })
  @IsOptional() @IsString() @MaxLength(128) transactionID?: string;
  @ApiPropertyOptional({ description: "The sector; omitted means the platform tenant's default sector." })
  @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
}

export class PublicKeyCredentialRequestOptionsResponse {
  @ApiProperty({ description: `The challenge, ${B64}.` }) challenge: string;
  @ApiProperty({ type: 'integer', description: 'Milliseconds (spelled as the interface spells it; equals timeout).' }) timout: number;
  @ApiProperty({ type: 'integer', description: 'Milliseconds.' }) timeout: number;
  @ApiProperty({ description: "The sector's RP ID." }) rpID: string;
  @ApiProperty({ type: [CredentialDescriptorResponse], description: 'The passkeys that may answer; [] for a usernameless (discoverable) sign-in.' })
  allowCredentials: CredentialDescriptorResponse[];
  @ApiProperty({ enum: ['required', 'preferred'] }) userVerification: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) extensions: Record<string, unknown>;
}

export class CredentialAssertionResponse {
  @ApiProperty({ type: PublicKeyCredentialRequestOptionsResponse }) publicKey: PublicKeyCredentialRequestOptionsResponse;
}

export class WebAuthnLoginBeginResponse {
  @ApiProperty({ type: CredentialAssertionResponse, description: 'Pass publicKey (binary fields decoded) to navigator.credentials.get().' })
  credentialAssertion: CredentialAssertionResponse;
  @ApiProperty({ description: 'The sign-in transaction; send it to login/webauthn/finish.' }) transactionID: string;
}

// ---- operation 15: sign-in finish ----

export class AssertionResponseDto {
  @ApiProperty({ description: `clientDataJSON, ${B64}.` }) @IsString() @IsNotEmpty() @MaxLength(CLIENT_DATA_MAX) clientDataJSON: string;
  @ApiProperty({ description: `authenticatorData, ${B64}.` }) @IsString() @IsNotEmpty() @MaxLength(CLIENT_DATA_MAX) authenticatorData: string;
  @ApiProperty({ description: `signature, ${B64}.` }) @IsString() @IsNotEmpty() @MaxLength(CLIENT_DATA_MAX) signature: string;
  @ApiPropertyOptional({ description: `userHandle, ${B64} (discoverable credentials return it).` })
  @IsOptional() @IsString() @MaxLength(512) userHandle?: string;
}

export class WebAuthnLoginFinishDto {
  @ApiPropertyOptional({ description: 'Username or email; when sent it must name the transaction’s user.' })
  @IsOptional() @IsString() @MaxLength(320) username?: string;
  @ApiPropertyOptional({ description: `Credential ID, ${B64} (the browser's id); must equal rawId.` }) @IsOptional() @IsString() @MaxLength(ID_MAX) id?: string;
  @ApiPropertyOptional({ enum: ['public-key'] }) @IsOptional() @IsString() @MaxLength(32) type?: string;
  @ApiPropertyOptional({ description: `Raw credential ID, ${B64}.` }) @IsOptional() @IsString() @MaxLength(ID_MAX) rawID?: string;
  @ApiPropertyOptional({ description: 'Alternative spelling of rawID (what credential.toJSON() produces).' }) @IsOptional() @IsString() @MaxLength(ID_MAX) rawId?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @IsOptional() @IsObject() clientExtensionResults?: Record<string, unknown>;
  @ApiPropertyOptional({ description: 'Accepted and ignored.' }) @IsOptional() @IsString() @MaxLength(32) authenticatorAttachment?: string;
  @ApiProperty({ type: AssertionResponseDto }) @IsObject() @ValidateNested() @Type(() => AssertionResponseDto) response: AssertionResponseDto;
  @ApiProperty({ description: 'The transaction login/webauthn/begin answered.' }) @IsString() @IsNotEmpty() @MaxLength(128) transactionID: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
}

// ---- operation 18: registration begin ----

export class WebAuthnRegistrationBeginDto {
  @ApiPropertyOptional({ description: 'A pending registration of the caller to issue a new challenge for (the previous one stops working).' })
  @IsOptional() @IsString() @MaxLength(128) transactionID?: string;
  @ApiPropertyOptional({ description: "The caller's sector (defaults to it; another sector is SECTOR_MISMATCH)." })
  @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
  @ApiPropertyOptional({ description: `A name for the passkey, up to ${KEY_NAME_MAX} characters (default "Passkey").` })
  @IsOptional() @IsString() @MaxLength(KEY_NAME_MAX) keyName?: string;
  @ApiPropertyOptional({ description: 'The current password: needed when the sign-in behind the access token is older than five minutes (else REAUTHENTICATION_REQUIRED).' })
  @IsOptional() @IsString() @MaxLength(1024) currentPassword?: string;
}

export class RelyingPartyEntityResponse {
  @ApiProperty({ description: 'Display name (WebAuthnRPDisplayName, else the sector name).' }) name: string;
  @ApiProperty({ description: 'Always "" (deprecated in WebAuthn).' }) icon: string;
  @ApiProperty({ description: 'RP ID (WebAuthnRPID, else the sector domain).' }) id: string;
}

export class UserEntityResponse {
  @ApiProperty({ description: 'The username.' }) name: string;
  @ApiProperty({ description: 'Always "".' }) icon: string;
  @ApiProperty({ description: 'The user’s name, else the username.' }) displayName: string;
  @ApiProperty({ description: `The user handle, ${B64} (opaque; the 16 bytes of the user's id).` }) id: string;
}

export class PubKeyCredParamResponse {
  @ApiProperty({ enum: ['public-key'] }) type: string;
  @ApiProperty({ type: 'integer', description: 'COSE algorithm: -7 ES256, -257 RS256, -8 EdDSA.' }) alg: number;
}

export class AuthenticatorSelectionResponse {
  @ApiProperty({ description: '"" (any authenticator); drop it before calling the browser, which rejects an empty value.' }) authenticatorAttachment: string;
  @ApiProperty() requireResidentKey: boolean;
  @ApiProperty({ enum: ['preferred'] }) residentKey: string;
  @ApiProperty({ enum: ['preferred'] }) userVerification: string;
}

export class PublicKeyCredentialCreationOptionsResponse {
  @ApiProperty({ description: `The challenge, ${B64}.` }) challenge: string;
  @ApiProperty({ type: RelyingPartyEntityResponse }) rp: RelyingPartyEntityResponse;
  @ApiProperty({ type: UserEntityResponse }) user: UserEntityResponse;
  @ApiProperty({ type: [PubKeyCredParamResponse] }) pubKeyCredParams: PubKeyCredParamResponse[];
  @ApiProperty({ type: AuthenticatorSelectionResponse }) authenticatorSelection: AuthenticatorSelectionResponse;
  @ApiProperty({ type: 'integer', description: 'Milliseconds.' }) timeout: number;
  @ApiProperty({ type: [CredentialDescriptorResponse], description: "The user's existing passkeys (the browser will not register one twice)." })
  excludeCredentials: CredentialDescriptorResponse[];
  @ApiProperty({ type: 'object', additionalProperties: true }) extensions: Record<string, unknown>;
  @ApiProperty({ enum: ['none'] }) attestation: string;
}

export class WebAuthnRegistrationBeginResponse {
  @ApiProperty({ type: PublicKeyCredentialCreationOptionsResponse, description: 'Pass (binary fields decoded) to navigator.credentials.create({publicKey}).' })
  options: PublicKeyCredentialCreationOptionsResponse;
  @ApiProperty({ description: 'The registration transaction; send it to webauthn/registration/finish.' }) transactionID: string;
  @ApiProperty() sectorID: string;
}

// ---- operation 19: registration finish ----

export class AttestationResponseDto {
  @ApiProperty({ description: `clientDataJSON, ${B64}.` }) @IsString() @IsNotEmpty() @MaxLength(CLIENT_DATA_MAX) clientDataJSON: string;
  @ApiProperty({ description: `attestationObject, ${B64}.` }) @IsString() @IsNotEmpty() @MaxLength(ATTESTATION_MAX) attestationObject: string;
  @ApiPropertyOptional({ type: [String], description: 'response.getTransports(), kept as a hint.' })
  @IsOptional() @IsArray() @ArrayMaxSize(16) @IsString({ each: true }) @MaxLength(32, { each: true }) transports?: string[];
}

/**
 * Body of operation 19. The interface's `ID`, `PublicKey`, `AttestationType`,
 * `AAGUID`, `SignCount` and `CloneWarning` are accepted for compatibility and
 * never used: what is stored comes from the verified attestation.
 */
export class WebAuthnRegistrationFinishDto {
  @ApiProperty({ description: 'The transaction registration/begin answered.' }) @IsString() @IsNotEmpty() @MaxLength(128) transactionID: string;
  @ApiPropertyOptional({ description: "The caller's sector; when sent it must be the registration's." }) @IsOptional() @IsString() @MaxLength(64) sectorID?: string;
  @ApiPropertyOptional({ description: `Credential ID, ${B64}; must equal rawId.` }) @IsOptional() @IsString() @MaxLength(ID_MAX) id?: string;
  @ApiPropertyOptional({ description: `Raw credential ID, ${B64}.` }) @IsOptional() @IsString() @MaxLength(ID_MAX) rawId?: string;
  @ApiPropertyOptional({ description: 'Alternative spelling of rawId.' }) @IsOptional() @IsString() @MaxLength(ID_MAX) rawID?: string;
  @ApiPropertyOptional({ enum: ['public-key'] }) @IsOptional() @IsString() @MaxLength(32) type?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @IsOptional() @IsObject() clientExtensionResults?: Record<string, unknown>;
  @ApiPropertyOptional({ description: 'Accepted and ignored.' }) @IsOptional() @IsString() @MaxLength(32) authenticatorAttachment?: string;
  @ApiProperty({ type: AttestationResponseDto }) @IsObject() @ValidateNested() @Type(() => AttestationResponseDto) response: AttestationResponseDto;
  @ApiPropertyOptional({ type: 'string', format: 'byte', description: 'Accepted for compatibility and ignored (the credential ID comes from the attestation).' }) @Allow() ID?: unknown;
  @ApiPropertyOptional({ type: 'string', format: 'byte', description: 'Accepted for compatibility and ignored (the public key comes from the attestation).' }) @Allow() PublicKey?: unknown;
  @ApiPropertyOptional({ type: 'string', description: 'Accepted for compatibility and ignored.' }) @Allow() AttestationType?: unknown;
  @ApiPropertyOptional({ type: 'string', format: 'byte', description: 'Accepted for compatibility and ignored (the AAGUID comes from the attestation).' }) @Allow() AAGUID?: unknown;
  @ApiPropertyOptional({ type: 'string', format: 'int64', description: 'Accepted for compatibility and ignored (the counter comes from the attestation).' }) @Allow() SignCount?: unknown;
  @ApiPropertyOptional({ type: 'boolean', description: 'Accepted for compatibility and ignored.' }) @Allow() CloneWarning?: unknown;
}

export class WebAuthnRegistrationFinishResponse {
  @ApiProperty({ description: 'The user the passkey now belongs to.' }) sub: string;
  @ApiProperty({ enum: ['public-key'] }) type: string;
}

// ---- management ----

export class WebAuthnCredentialResponse {
  @ApiProperty({ description: `Credential ID, ${B64} (the browser's credential id; also the path parameter).` }) id: string;
  @ApiProperty() keyName: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds.' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds; "0" when never used to sign in.' }) lastUsedAt: string;
  @ApiProperty({ type: [String] }) transports: string[];
  @ApiProperty({ description: 'Backed up (synced) as last reported by the authenticator.' }) backedUp: boolean;
  @ApiProperty({ description: 'Authenticator model (AAGUID, UUID form; zeros when the authenticator does not say).' }) aaguid: string;
  @ApiProperty({ description: 'The signature counter once went backwards: the passkey may have been cloned (kept after the flag is cleared, as history).' }) cloneWarning: boolean;
  @ApiProperty({ description: 'Flagged as possibly cloned: every sign-in with it is refused (WEBAUTHN_CREDENTIAL_FLAGGED) until an admin clears the flag.' }) flagged: boolean;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds of the flag; "0" when not flagged.' }) flaggedAt: string;
}

export class ListWebAuthnCredentialsResponse {
  @ApiProperty({ type: [WebAuthnCredentialResponse] }) credentials: WebAuthnCredentialResponse[];
}

export class RenameWebAuthnCredentialDto {
  @ApiProperty({ description: `1 to ${KEY_NAME_MAX} characters.` }) @IsString() @IsNotEmpty() @MaxLength(KEY_NAME_MAX) keyName: string;
}

export class WebAuthnCredentialIdResponse {
  @ApiProperty() id: string;
}
