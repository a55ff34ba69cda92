import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import { decodeAttestationObject, parseAuthenticatorData } from '@simplewebauthn/server/helpers';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Refusal } from '../auth/engine/factor-strategy';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { fromBase64 } from '../common/wire/wire';
import type { RelyingParty } from '../settings/relying-party';

/**
 * The WebAuthn ceremonies' checks. Each answer is either the verified facts or a
 * refusal with its own reason: the parts a client can get wrong in distinct ways
 * (the challenge, the origin, the RP ID, user presence and verification) are
 * checked here first, so that each has its reason; then @simplewebauthn/server
 * verifies the whole response (attestation or assertion signature included)
 * against the same expectations. Diagnostics go into a refusal's metadata only
 * when the sector has WebAuthnDebug, and never carry a challenge or a key.
 */

/** COSE algorithms offered and accepted: ES256, RS256, EdDSA. */
export const SUPPORTED_ALGORITHMS = [-7, -257, -8] as const;

/** Transports a browser may report (anything else is dropped). */
const KNOWN_TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

export type Outcome<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

/** What a ceremony expects: the challenge it issued, the relying party, and whether the user must be verified. */
export interface Expected {
  challenge: string;
  rp: RelyingParty;
  requireUserVerification: boolean;
}

/** A 256-bit challenge, base64url. */
export function newChallenge(): string {
  return randomBytes(32).toString('base64url');
}

/** The WebAuthn user handle of a user: the 16 bytes of their UUID (opaque, no personal data), base64url. */
export function userHandleOf(userId: string): string {
  return Buffer.from(userId.replace(/-/g, ''), 'hex').toString('base64url');
}

/** Standard or URL-safe base64, padded or not, as canonical base64url; undefined when the text is not base64. */
export function toBase64Url(text: string | undefined): string | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  return fromBase64(text)?.toString('base64url');
}

/** The transports worth keeping from a browser's hint. */
export function knownTransports(transports: unknown): string[] {
  if (!Array.isArray(transports)) return [];
  return [...new Set(transports.filter((t): t is string => typeof t === 'string' && KNOWN_TRANSPORTS.has(t)))].sort();
}

/** A library message fit for a debug detail: long base64-like runs (challenges, ids, keys) removed, bounded. */
export function sanitizeDetail(message: string): string {
  return message.replace(/[A-Za-z0-9_\-+/=]{20,}/g, '[redacted]').slice(0, 300);
}

function refuse(reason: string, message: string, rp: RelyingParty, debug: Record<string, string> = {}): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: { reason, message, metadata: rp.debug ? debug : {} } };
}

interface ClientData {
  type?: unknown;
  challenge?: unknown;
  origin?: unknown;
  crossOrigin?: unknown;
  topOrigin?: unknown;
}

/** Checks clientDataJSON: the ceremony type, the challenge issued, and an allowed origin (same-origin only). */
function checkClientData(clientDataJSON: string, type: 'webauthn.create' | 'webauthn.get', expected: Expected): Outcome<ClientData> {
  const { rp } = expected;
  let data: ClientData;
  try {
    data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as ClientData;
    if (typeof data !== 'object' || data === null) throw new Error('clientDataJSON is not a JSON object');
  } catch (err) {
    return refuse(Reason.WEBAUTHN_RESPONSE_INVALID, 'The passkey response is malformed.', rp, { detail: `clientDataJSON: ${sanitizeDetail((err as Error).message)}` });
  }
  if (data.type !== type) {
    return refuse(Reason.WEBAUTHN_RESPONSE_INVALID, 'The passkey response is not of this ceremony.', rp, {
      expectedType: type,
      receivedType: typeof data.type === 'string' ? data.type.slice(0, 40) : '',
    });
  }
  if (typeof data.challenge !== 'string' || !challengeEquals(data.challenge, expected.challenge)) {
    return refuse(Reason.WEBAUTHN_CHALLENGE_MISMATCH, 'The passkey response does not answer the pending challenge (replayed, reordered or unknown); begin again.', rp, {
      detail: 'the challenge signed is not the one pending on this transaction',
    });
  }
  const origin = typeof data.origin === 'string' ? data.origin : '';
  if (!rp.origins.includes(origin) || data.crossOrigin === true || data.topOrigin !== undefined) {
    return refuse(Reason.WEBAUTHN_ORIGIN_MISMATCH, 'The passkey was used on an origin this sector does not allow.', rp, {
      expectedOrigins: rp.origins.join(' '),
      receivedOrigin: origin.slice(0, 300),
      ...(data.crossOrigin === true ? { detail: 'cross-origin (iframe) use is not allowed' } : {}),
    });
  }
  return { ok: true, value: data };
}

function challengeEquals(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

type AuthData = ReturnType<typeof parseAuthenticatorData>;

/** Checks authenticator data: the RP ID hash, user presence, and user verification where required. */
function checkAuthData(authData: Uint8Array, expected: Expected): Outcome<AuthData> {
  const { rp } = expected;
  let parsed: AuthData;
  try {
    parsed = parseAuthenticatorData(new Uint8Array(authData));
  } catch (err) {
    return refuse(Reason.WEBAUTHN_RESPONSE_INVALID, 'The passkey response is malformed.', rp, { detail: `authenticatorData: ${sanitizeDetail((err as Error).message)}` });
  }
  const rpIdHash = createHash('sha256').update(rp.id).digest();
  if (!Buffer.from(parsed.rpIdHash).equals(rpIdHash)) {
    return refuse(Reason.WEBAUTHN_RP_ID_MISMATCH, 'The passkey belongs to another relying party (RP ID).', rp, {
      expectedRPID: rp.id,
      detail: 'the authenticator data names another RP ID (its hash differs)',
    });
  }
  if (!parsed.flags.up) return refuse(Reason.WEBAUTHN_RESPONSE_INVALID, 'The authenticator did not confirm user presence.', rp, { detail: 'UP flag not set' });
  if (expected.requireUserVerification && !parsed.flags.uv) {
    return refuse(Reason.WEBAUTHN_USER_NOT_VERIFIED, 'The passkey must verify the user (biometric or PIN) to be used as the first factor.', rp, {
      detail: 'UV flag not set',
    });
  }
  return { ok: true, value: parsed };
}

/** What a client sends back from `navigator.credentials.create()` (binary fields base64 or base64url). */
export interface AttestationInput {
  rawId: string;
  id?: string;
  type?: string;
  clientDataJSON: string;
  attestationObject: string;
  transports?: unknown;
  clientExtensionResults?: Record<string, unknown>;
}

/** A credential as the verified attestation describes it. */
export interface VerifiedCredential {
  credentialId: string;
  publicKey: Buffer;
  counter: number;
  aaguid: string;
  format: string;
  backupEligible: boolean;
  backedUp: boolean;
  transports: string[];
}

/** Verifies a registration (attestation) response; everything returned comes from the verified attestation. */
export async function verifyAttestation(input: AttestationInput, expected: Expected): Promise<Outcome<VerifiedCredential>> {
  const { rp } = expected;
  const malformed = (detail: string) => refuse(Reason.WEBAUTHN_RESPONSE_INVALID, 'The passkey response is malformed.', rp, { detail });
  const rawId = toBase64Url(input.rawId);
  const clientDataJSON = toBase64Url(input.clientDataJSON);
  const attestationObject = toBase64Url(input.attestationObject);
  if (!rawId) return malformed('rawId is not base64');
  if (!clientDataJSON) return malformed('clientDataJSON is not base64');
  if (!attestationObject) return malformed('attestationObject is not base64');
  if (input.id !== undefined && toBase64Url(input.id) !== rawId) return malformed('id and rawId differ');
  if (input.type !== undefined && input.type !== 'public-key') return malformed('type is not public-key');
  const client = checkClientData(clientDataJSON, 'webauthn.create', expected);
  if (!client.ok) return client;
  let authData: Uint8Array;
  try {
    authData = decodeAttestationObject(Buffer.from(attestationObject, 'base64url')).get('authData');
    if (!(authData instanceof Uint8Array)) throw new Error('no authData');
  } catch (err) {
    return malformed(`attestationObject: ${sanitizeDetail((err as Error).message)}`);
  }
  const auth = checkAuthData(authData, expected);
  if (!auth.ok) return auth;
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response: {
        id: rawId,
        rawId,
        type: 'public-key',
        response: { clientDataJSON, attestationObject, transports: knownTransports(input.transports) },
        clientExtensionResults: (input.clientExtensionResults ?? {}) as never,
      },
      expectedChallenge: expected.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: expected.requireUserVerification,
      supportedAlgorithmIDs: [...SUPPORTED_ALGORITHMS],
    });
  } catch (err) {
    return refuse(Reason.WEBAUTHN_RESPONSE_INVALID, 'The passkey attestation could not be verified.', rp, { detail: sanitizeDetail((err as Error).message) });
  }
  if (!result.verified) return refuse(Reason.WEBAUTHN_BAD_SIGNATURE, 'The attestation signature does not verify.', rp, { detail: 'attestation statement not verified' });
  const info = result.registrationInfo;
  if (info.credential.id !== rawId) return malformed('the attested credential ID is not rawId');
  return {
    ok: true,
    value: {
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey),
      counter: info.credential.counter,
      aaguid: info.aaguid,
      format: info.fmt,
      backupEligible: info.credentialDeviceType === 'multiDevice',
      backedUp: info.credentialBackedUp,
      transports: knownTransports(info.credential.transports),
    },
  };
}

/** What a client sends back from `navigator.credentials.get()` (binary fields base64 or base64url). */
export interface AssertionInput {
  rawId: string;
  id?: string;
  type?: string;
  clientDataJSON: string;
  authenticatorData: string;
  signature: string;
  userHandle?: string;
  clientExtensionResults?: Record<string, unknown>;
}

/** The stored credential an assertion is checked against. */
export interface StoredCredential {
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: string[];
}

export interface VerifiedAssertion {
  newCounter: number;
  backedUp: boolean;
  userVerified: boolean;
  /** The counter went backwards (or stood still while counting): the authenticator may be cloned. */
  counterRegressed: boolean;
}

/**
 * The checks of an assertion that need no stored credential: its encoding, the
 * ceremony type, the challenge, the origin, the RP ID, user presence and (where
 * required) verification. Answers the fields as canonical base64url.
 */
export function checkAssertionContext(
  input: AssertionInput,
  expected: Expected,
): Outcome<{ clientDataJSON: string; authenticatorData: string; signature: string }> {
  const malformed = (detail: string) => refuse(Reason.WEBAUTHN_RESPONSE_INVALID, 'The passkey response is malformed.', expected.rp, { detail });
  const rawId = toBase64Url(input.rawId);
  const clientDataJSON = toBase64Url(input.clientDataJSON);
  const authenticatorData = toBase64Url(input.authenticatorData);
  const signature = toBase64Url(input.signature);
  if (!rawId) return malformed('rawId is not base64');
  if (!clientDataJSON) return malformed('clientDataJSON is not base64');
  if (!authenticatorData) return malformed('authenticatorData is not base64');
  if (!signature) return malformed('signature is not base64');
  if (input.userHandle !== undefined && input.userHandle !== '' && !toBase64Url(input.userHandle)) return malformed('userHandle is not base64');
  if (input.id !== undefined && toBase64Url(input.id) !== rawId) return malformed('id and rawId differ');
  if (input.type !== undefined && input.type !== 'public-key') return malformed('type is not public-key');
  const client = checkClientData(clientDataJSON, 'webauthn.get', expected);
  if (!client.ok) return client;
  const auth = checkAuthData(Buffer.from(authenticatorData, 'base64url'), expected);
  if (!auth.ok) return auth;
  return { ok: true, value: { clientDataJSON, authenticatorData, signature } };
}

/**
 * Verifies an assertion against a stored credential. The signature is checked
 * before the counter is judged, so a forged response cannot get a credential
 * flagged as cloned; the counter rule is the library's (a counter that does not
 * increase, when either side counts, is a regression).
 */
export async function verifyAssertion(input: AssertionInput, credential: StoredCredential, expected: Expected): Promise<Outcome<VerifiedAssertion>> {
  const { rp } = expected;
  const malformed = (detail: string) => refuse(Reason.WEBAUTHN_RESPONSE_INVALID, 'The passkey response is malformed.', rp, { detail });
  const rawId = credential.credentialId;
  const context = checkAssertionContext(input, expected);
  if (!context.ok) return context;
  const { clientDataJSON, authenticatorData, signature } = context.value;
  if (toBase64Url(input.rawId) !== rawId) return malformed('rawId is not the credential checked');
  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response: {
        id: rawId,
        rawId,
        type: 'public-key',
        response: { clientDataJSON, authenticatorData, signature, ...(input.userHandle ? { userHandle: toBase64Url(input.userHandle) } : {}) },
        clientExtensionResults: (input.clientExtensionResults ?? {}) as never,
      },
      expectedChallenge: expected.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      // Judged below, after the signature: the library would refuse a regression before checking it.
      credential: { id: rawId, publicKey: new Uint8Array(credential.publicKey), counter: 0, transports: credential.transports },
      requireUserVerification: expected.requireUserVerification,
    });
  } catch (err) {
    return refuse(Reason.WEBAUTHN_RESPONSE_INVALID, 'The passkey assertion could not be verified.', rp, { detail: sanitizeDetail((err as Error).message) });
  }
  if (!result.verified) return refuse(Reason.WEBAUTHN_BAD_SIGNATURE, 'The passkey signature does not verify.', rp, { detail: 'assertion signature not verified' });
  const newCounter = result.authenticationInfo.newCounter;
  const counterRegressed = (newCounter > 0 || credential.signCount > 0) && newCounter <= credential.signCount;
  return {
    ok: true,
    value: { newCounter, backedUp: result.authenticationInfo.credentialBackedUp, userVerified: result.authenticationInfo.userVerified, counterRegressed },
  };
}

/** The refusal of an assertion whose counter did not move forward (the credential is flagged as possibly cloned). */
export function counterRegression(rp: RelyingParty, stored: number, received: number): Refusal {
  return refuse(Reason.WEBAUTHN_COUNTER_REGRESSION, "The passkey's signature counter went backwards; it may have been cloned and is flagged.", rp, {
    storedCounter: String(stored),
    receivedCounter: String(received),
  }).refusal;
}

/** A refusal with this relying party's diagnostics policy (metadata only with WebAuthnDebug). */
export function refusalFor(rp: RelyingParty, reason: string, message: string, debug: Record<string, string> = {}): Refusal {
  return refuse(reason, message, rp, debug).refusal;
}

/** The credential ID a finish body names (rawID, rawId or id), as canonical base64url; VALIDATION_FAILED when absent, malformed or contradictory. */
export function credentialIdOf(dto: { rawID?: string; rawId?: string; id?: string }): string {
  const given = [dto.rawID, dto.rawId].filter((v): v is string => v !== undefined && v !== '');
  const candidates = given.length > 0 ? given : dto.id ? [dto.id] : [];
  if (candidates.length === 0) throw DomainError.invalidField('rawId', 'is required: the credential ID (rawID or rawId), base64url or base64');
  const decoded = candidates.map((c) => toBase64Url(c));
  if (decoded.some((d) => d === undefined)) throw DomainError.invalidField(given.length > 0 ? (dto.rawID !== undefined ? 'rawID' : 'rawId') : 'id', 'must be base64url or base64');
  if (new Set(decoded).size > 1) throw DomainError.invalidField('rawId', 'rawID and rawId name different credentials');
  return decoded[0]!;
}
