import { outboundUrlProblem } from '../common/http/outbound';
import type { OidcPayload } from './oidc-storage.repository';

/** Client metadata holding URLs the provider calls, and their names in the admin API. */
const CALLED_URLS: Record<string, string> = {
  backchannel_logout_uri: 'backchannelLogoutURI',
  jwks_uri: 'jwksURI',
};

/** A registered URL the outbound rules refuse: its metadata name, its admin API field and why. */
export interface CalledUrlProblem {
  metadata: string;
  field: string;
  description: string;
}

/**
 * The first URL of a client's metadata that the provider would call (back-channel
 * logout, the client's key set) and the outbound rules refuse, judged from the URL:
 * https only, never a loopback, private or link-local address, unless private
 * networks are allowed (OUTBOUND_ALLOW_PRIVATE_NETWORKS). A name that resolves to
 * such an address is refused again when connecting.
 */
export function calledUrlProblem(metadata: OidcPayload, allowPrivateNetworks: boolean): CalledUrlProblem | undefined {
  for (const [name, field] of Object.entries(CALLED_URLS)) {
    const value = metadata[name];
    if (typeof value !== 'string') continue;
    const url = URL.parse(value);
    const problem = url ? outboundUrlProblem(url, false, allowPrivateNetworks) : 'must be a URL';
    if (problem) return { metadata: name, field, description: `${name} ${problem}` };
  }
  return undefined;
}
