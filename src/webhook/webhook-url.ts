import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress, outboundUrlProblem } from '../common/http/outbound';

/** Longest endpoint URL accepted. */
const MAX_URL_LENGTH = 2048;

/**
 * Why an endpoint URL cannot be registered (undefined: it can): it must be an
 * absolute https URL without credentials or fragment, whose host is a public
 * address or a name resolving only to public addresses (checked again at every
 * delivery, on the address connected to). With `allowPrivateNetworks`
 * (OUTBOUND_ALLOW_PRIVATE_NETWORKS), plain http and loopback, private and
 * link-local addresses are accepted too.
 */
export async function webhookUrlProblem(raw: string, allowPrivateNetworks: boolean): Promise<string | undefined> {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash !== '') return 'must not have a fragment';
  const problem = outboundUrlProblem(url, false, allowPrivateNetworks);
  if (problem) return problem;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowPrivateNetworks || isIP(host) !== 0) return undefined;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    return `names a host that does not resolve (${host})`;
  }
  const refused = addresses.find((a) => classifyAddress(a.address) !== 'public');
  return refused ? `names a host that resolves to a ${classifyAddress(refused.address)} address` : undefined;
}
