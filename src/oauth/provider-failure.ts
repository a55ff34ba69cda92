import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { OutboundRefusedError } from '../common/http/outbound';
import type { ProviderName } from './oauth-provider.entity';

/** What a 503 for a provider that cannot be used tells clients to wait (Retry-After). */
const PROVIDER_RETRY_AFTER_SECONDS = 60;

/** The provider's name as a person reads it on a sign-in page. */
const DISPLAY_NAMES: Record<ProviderName, string> = { google: 'Google', github: 'GitHub', apple: 'Apple', oidc: 'single sign-on' };

/**
 * A provider answered in a way that makes it unusable for now (an error
 * status, something that is not its protocol's answer, a refusal of our client
 * credentials): the technical cause, for the log and the admin's Test.
 */
export class ProviderFault extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderFault';
  }
}

/** Network error codes (node:net, node:dns, TLS) in an admin's words. */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  ENOTFOUND: 'the host name was not found (DNS)',
  EAI_AGAIN: 'the host name could not be resolved (DNS)',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  ABORT_ERR: 'no answer in time',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate could not be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its TLS certificate could not be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host name',
};

function* chain(err: unknown): Generator<unknown> {
  for (let e = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) yield e;
}

/**
 * A network failure behind an error (its cause chain): refused, reset,
 * unknown host, timeout, TLS; undefined when the error is something else.
 */
export function networkFailure(err: unknown): string | undefined {
  for (const e of chain(err)) {
    if (!e || typeof e !== 'object') continue;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES[code]) return NETWORK_CODES[code];
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return 'no answer in time';
    if (e instanceof TypeError && e.message === 'fetch failed') return 'the request failed';
  }
  return undefined;
}

/** The HTTP status of an answer behind an error (openid-client keeps the Response, or the status of an error body). */
function answeredStatus(err: unknown): number | undefined {
  for (const e of chain(err)) {
    if (e instanceof Response) return e.status;
    const status = (e as { status?: unknown } | null)?.status;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** OAuth errors of a token endpoint that mean our client (its ID, secret or key) was refused: the administrator's to fix. */
const CLIENT_REFUSED = new Set(['invalid_client', 'unauthorized_client', 'incorrect_client_credentials']);
/** openid-client codes for an answer that is not the protocol's: an error page, not JSON, a malformed document. */
const NOT_CONFORM = new Set(['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON', 'OAUTH_PARSE_ERROR', 'OAUTH_INVALID_SERVER_METADATA', 'OAUTH_MISSING_SERVER_METADATA']);

/**
 * Why a call to a provider failed, when the provider (or the way to it) is at
 * fault rather than the user's answer: unreachable, timed out, an HTTP 5xx, an
 * answer that is not its protocol's, or our client refused. Undefined for what
 * the user's answer caused (a bad or used code, an ID token that fails its
 * checks): those stay OAUTH_EXCHANGE_FAILED.
 */
export function providerFault(err: unknown): string | undefined {
  if (err instanceof DomainError) return undefined;
  if (err instanceof OutboundRefusedError) return undefined;
  const network = networkFailure(err);
  if (network) return network;
  for (const e of chain(err)) {
    if (e instanceof ProviderFault) return e.message;
    const oauthError = (e as { error?: unknown } | null)?.error;
    if (typeof oauthError === 'string' && CLIENT_REFUSED.has(oauthError)) return `the provider refused the client (${oauthError}): check the client ID and secret`;
  }
  const status = answeredStatus(err);
  if (status !== undefined && status >= 500) return `the provider answered HTTP ${status}`;
  const code = codeOf(err);
  if (NOT_CONFORM.has(code)) return `the provider's answer was not usable (${err instanceof Error ? err.message : code}${status !== undefined ? `, HTTP ${status}` : ''})`;
  if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' && (err as { cause?: { attribute?: unknown } }).cause?.attribute === 'issuer') return 'the discovery document names another issuer';
  return undefined;
}

/**
 * The error an end user sees when a provider cannot be used now: 503
 * UNAVAILABLE / SOCIAL_PROVIDER_UNAVAILABLE with a message they can act on
 * and a Retry-After. The technical cause is never in it (it goes to the log).
 */
export function providerUnavailable(provider: ProviderName): DomainError {
  return new DomainError(
    ErrorCode.UNAVAILABLE,
    Reason.SOCIAL_PROVIDER_UNAVAILABLE,
    `Signing in with ${DISPLAY_NAMES[provider]} is not working right now. Try another way to sign in, or try again later.`,
    { metadata: { provider }, retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS },
  );
}
