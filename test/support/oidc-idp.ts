/* eslint-disable no-console -- silences the provider library's start-up notices on the console */
/**
 * A real OpenID provider for the social-login specs: `oidc-provider` (v9) on
 * 127.0.0.1, with one confidential client (PKCE required) whose redirect URI is
 * the service's callback, and accounts with a verified and an unverified email.
 * Interactions are finished programmatically: `authorize(url)` follows the
 * authorization URL to the interaction route, where a small handler logs in the
 * account chosen with `useAccount` and grants consent (`interactionFinished`
 * with a Grant), then follows the redirects to the provider's answer — the
 * Location to the service's callback, which the test then calls.
 *
 * `tamper` rewrites the ID token the token endpoint answers (re-signed with the
 * provider's own key): how a spec sends an ID token with a wrong nonce or audience.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface IdpAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export interface OidcIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, IdpAccount>;
  /** The account the next interaction logs in. */
  useAccount(sub: string): void;
  /** Rewrites the claims of ID tokens the token endpoint answers (undefined: none). */
  tamper: ((claims: Record<string, unknown>) => Record<string, unknown>) | undefined;
  /** Follows an authorization URL through login and consent; answers the final redirect (to the client's redirect URI). */
  authorize(authUrl: string): Promise<URL>;
  close(): Promise<void>;
}

const dynamicImport = (name: string): Promise<any> => import(name);

export async function startOidcIdp(redirectUris: string[]): Promise<OidcIdp> {
  // The library's start-up notices (runtime version, in-memory adapter) are not the spec's business.
  const quiet = { warn: console.warn, info: console.info };
  console.warn = () => undefined;
  console.info = () => undefined;
  let Provider: any;
  try {
    ({ default: Provider } = await dynamicImport('oidc-provider'));
  } finally {
    Object.assign(console, quiet);
  }
  const jose = await dynamicImport('jose');
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'idp-key-1', alg: 'RS256', use: 'sig' };

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'iam-service';
  const clientSecret = 'idp-client-secret-0123456789abcdef';

  const accounts = new Map<string, IdpAccount>();
  let current = '';
  console.warn = () => undefined;
  const provider = new Provider(issuer, {
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' },
    ],
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: async () => ({ ...account }) } : undefined;
    },
  });
  console.warn = quiet.warn;
  const idp: OidcIdp = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    useAccount: (sub) => {
      current = sub;
    },
    tamper: undefined,
    authorize: (url) => authorize(url),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  // Re-signs the token endpoint's ID token when a spec tampers with it.
  provider.use(async (ctx: any, next: () => Promise<void>) => {
    await next();
    if (ctx.path === '/token' && idp.tamper && ctx.body && typeof ctx.body.id_token === 'string') {
      const claims = idp.tamper(JSON.parse(Buffer.from(ctx.body.id_token.split('.')[1], 'base64url').toString('utf8')));
      ctx.body = { ...ctx.body, id_token: await new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(privateKey) };
    }
  });

  const handler = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      void (async () => {
        try {
          const details = await provider.interactionDetails(req, res);
          const grant = new provider.Grant({ accountId: current, clientId: details.params.client_id });
          grant.addOIDCScope(String(details.params.scope));
          const grantId = await grant.save();
          await provider.interactionFinished(req, res, { login: { accountId: current }, consent: { grantId } }, { mergeWithLastSubmission: false });
        } catch (err) {
          res.statusCode = 500;
          res.end(String(err));
        }
      })();
      return;
    }
    handler(req, res);
  });

  /** Follows redirects on the provider with a cookie jar, until one leaves the provider. */
  async function authorize(authUrl: string): Promise<URL> {
    const jar = new Map<string, string>();
    let url = new URL(authUrl);
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`the provider answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
      url = new URL(location, url);
      if (url.origin !== issuer) return url;
    }
    throw new Error('too many redirects at the provider');
  }

  return idp;
}
