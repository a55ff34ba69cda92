/**
 * A software authenticator for the responses a browser will not produce: an
 * ES256 key pair from node:crypto, a small CBOR encoder, and hand-built
 * attestation ("none") and assertion responses whose every part (challenge,
 * origin, RP ID, flags, counter, signature) a spec can choose.
 */
import { createHash, generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';

// ---- CBOR (RFC 8949), just what WebAuthn structures need ----

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const parts: Buffer[] = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

// ---- authenticator data ----

export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

export interface CeremonyParts {
  /** The challenge to sign (base64url, as the service issued it). */
  challenge: string;
  origin: string;
  rpId: string;
  /** clientDataJSON.type; the ceremony's own by default. */
  type?: string;
  /** Authenticator data flags; UP|UV (|AT for an attestation) by default. */
  flags?: number;
  counter?: number;
  /** Extra clientDataJSON members (crossOrigin, topOrigin…). */
  clientExtras?: Record<string, unknown>;
}

/** A P-256 credential held in memory: it answers registrations and sign-ins as a real authenticator would, or as told. */
export class SoftAuthenticator {
  readonly credentialId: Buffer;
  readonly privateKey: KeyObject;
  readonly cosePublicKey: Buffer;
  readonly aaguid: Buffer;
  counter = 0;

  constructor(options: { credentialId?: Buffer; aaguid?: Buffer } = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    this.cosePublicKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x, 'base64url')],
        [-3, Buffer.from(jwk.y, 'base64url')],
      ]),
    );
    this.credentialId = options.credentialId ?? randomBytes(32);
    this.aaguid = options.aaguid ?? Buffer.from('5ca1ab1e00112233445566778899aabb', 'hex');
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The body of registration/finish for creation options' challenge, `fmt: none`. */
  attestation(parts: CeremonyParts): Record<string, unknown> {
    const counter = parts.counter ?? this.counter;
    const flags = parts.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT;
    const credLen = Buffer.alloc(2);
    credLen.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([authDataHead(parts.rpId, flags, counter), this.aaguid, credLen, this.credentialId, this.cosePublicKey]);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientData('webauthn.create', parts)),
        attestationObject: b64url(attestationObject),
        transports: ['usb'],
      },
    };
  }

  /**
   * The body of login/webauthn/finish answering `parts.challenge`. The counter
   * advances unless `parts.counter` says otherwise; `signWith` signs with another
   * key (a bad signature); `userHandle` is added when given.
   */
  assertion(parts: CeremonyParts & { userHandle?: string; signWith?: KeyObject }): Record<string, unknown> {
    const counter = parts.counter ?? ++this.counter;
    const flags = parts.flags ?? FLAGS.UP | FLAGS.UV;
    const authData = authDataHead(parts.rpId, flags, counter);
    const clientDataJSON = clientData('webauthn.get', parts);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), { key: parts.signWith ?? this.privateKey, dsaEncoding: 'der' });
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(parts.userHandle ? { userHandle: parts.userHandle } : {}),
      },
    };
  }
}

function authDataHead(rpId: string, flags: number, counter: number): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), count]);
}

function clientData(type: string, parts: CeremonyParts): Buffer {
  return Buffer.from(JSON.stringify({ type: parts.type ?? type, challenge: parts.challenge, origin: parts.origin, crossOrigin: false, ...parts.clientExtras }), 'utf8');
}

/** A key pair that is not the credential's (to sign with: a bad signature). */
export function strangerKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}

/** The user handle the service gives a user: the 16 bytes of their id, base64url. */
export function userHandleOf(sub: string): string {
  return Buffer.from(sub.replace(/-/g, ''), 'hex').toString('base64url');
}
