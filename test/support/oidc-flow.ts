import type request from 'supertest';

/** An app's side of an authorization request begun in a browser: what it keeps to redeem the code. */
export interface StartedAuthorization {
  interaction: string;
  location: URL;
  codeVerifier: string;
  state: string;
  nonce: string;
}

/** A path and query of an absolute URL, for a supertest agent bound to the service. */
export const localPath = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/**
 * Starts an authorization code request (PKCE S256, state, nonce) with `openid-client`'s
 * configuration `conf` in the browser `agent`; the provider must send it to the
 * service's sign-in page. Answers the interaction id and what the app keeps.
 */
export async function startAuthorization(oc: any, agent: request.Agent, conf: any, redirectUri: string, params: Record<string, string> = {}): Promise<StartedAuthorization> {
  const codeVerifier = oc.randomPKCECodeVerifier();
  const state = oc.randomState();
  const nonce = oc.randomNonce();
  const url: URL = oc.buildAuthorizationUrl(conf, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await oc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...params,
  });
  const res = await agent.get(localPath(url.href));
  expect(res.status).toBe(303);
  const location = new URL(res.headers.location);
  const interaction = location.searchParams.get('interaction');
  expect(interaction).toEqual(expect.any(String));
  expect(location.pathname).toBe(`/api/v1/oidc/interactions/${interaction}`);
  return { interaction: interaction as string, location, codeVerifier, state, nonce };
}

/** Follows the provider's redirects in `agent` (bound to `baseUrl`) until the app's redirect URI; answers that URL. */
export async function followToApp(agent: request.Agent, baseUrl: string, redirectUri: string, redirectTo: string): Promise<URL> {
  let next = redirectTo;
  for (let hop = 0; hop < 6; hop++) {
    if (next.startsWith(redirectUri)) return new URL(next);
    const res = await agent.get(localPath(next));
    if (![302, 303].includes(res.status)) throw new Error(`${next}: ${res.status} ${res.text.slice(0, 600)}`);
    next = new URL(res.headers.location, baseUrl).href;
  }
  throw new Error(`no redirect to the app after 6 hops (last: ${next})`);
}
