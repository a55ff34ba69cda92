/**
 * Small `node:http` stand-ins for GitHub and Apple in the social-login specs.
 * They play the token and user endpoints (GitHub: access_token, /user,
 * /user/emails; Apple: discovery, JWK Set, token with an RS256 ID token) and
 * record what the service sends (form fields and headers), so a spec can check
 * the PKCE verifier, the GitHub App JWT and Apple's client-secret JWT.
 */
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  form: Record<string, string>;
}

interface FakeServer {
  base: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

interface GitHubUser {
  id: number;
  login: string;
  name: string;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

export interface FakeGitHub extends FakeServer {
  /** code → the user that code signs in. */
  codes: Map<string, GitHubUser>;
}

interface AppleIdentity {
  sub: string;
  email: string;
  email_verified: boolean | string;
  /** Overrides of the ID token's claims (e.g. a wrong nonce). */
  override?: Record<string, unknown>;
}

export interface FakeApple extends FakeServer {
  /** code → the identity and nonce the ID token carries; the audience is `clientId`. */
  codes: Map<string, AppleIdentity & { nonce: string }>;
  clientId: string;
}

const dynamicImport = (name: string): Promise<any> => import(name);

async function listen(handle: (req: IncomingMessage, form: Record<string, string>) => Promise<{ status: number; body: unknown }>): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const form = Object.fromEntries(new URLSearchParams(text));
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.push({ method: req.method ?? '', path, headers: req.headers, form });
      handle(req, form)
        .then(({ status, body }) => {
          res.statusCode = status;
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(body));
        })
        .catch((err) => {
          res.statusCode = 500;
          res.end(String(err));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** GitHub: POST /login/oauth/access_token, GET /user and /user/emails (one server plays both the web and the API base). */
export async function startFakeGitHub(): Promise<FakeGitHub> {
  const codes = new Map<string, GitHubUser>();
  const tokens = new Map<string, GitHubUser>();
  const fake = await listen(async (req, form) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST' && path === '/login/oauth/access_token') {
      const user = codes.get(form.code ?? '');
      if (!user) return { status: 200, body: { error: 'bad_verification_code' } };
      codes.delete(form.code);
      const token = `gho_${Math.random().toString(36).slice(2)}`;
      tokens.set(token, user);
      return { status: 200, body: { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' } };
    }
    const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!user) return { status: 401, body: { message: 'Bad credentials' } };
    if (path === '/user') return { status: 200, body: { id: user.id, login: user.login, name: user.name } };
    if (path === '/user/emails') return { status: 200, body: user.emails };
    return { status: 404, body: { message: 'Not Found' } };
  });
  return { ...fake, codes };
}

/** Apple: discovery, JWK Set, and a token endpoint that answers an RS256 ID token for the code. */
export async function startFakeApple(clientId: string): Promise<FakeApple> {
  const jose = await dynamicImport('jose');
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'apple-key-1', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, AppleIdentity & { nonce: string }>();
  let base = '';
  const fake = await listen(async (req, form) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/.well-known/openid-configuration') {
      return {
        status: 200,
        body: {
          issuer: base,
          authorization_endpoint: `${base}/auth/authorize`,
          token_endpoint: `${base}/auth/token`,
          jwks_uri: `${base}/auth/keys`,
          response_types_supported: ['code'],
          subject_types_supported: ['pairwise'],
          id_token_signing_alg_values_supported: ['RS256'],
          token_endpoint_auth_methods_supported: ['client_secret_post'],
        },
      };
    }
    if (path === '/auth/keys') return { status: 200, body: { keys: [jwk] } };
    if (req.method === 'POST' && path === '/auth/token') {
      const identity = codes.get(form.code ?? '');
      if (!identity) return { status: 400, body: { error: 'invalid_grant' } };
      codes.delete(form.code);
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: base, aud: clientId, sub: identity.sub, email: identity.email, email_verified: identity.email_verified, nonce: identity.nonce, iat: now, exp: now + 600, ...identity.override };
      const idToken = await new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(privateKey);
      return { status: 200, body: { access_token: 'apple-at', token_type: 'Bearer', expires_in: 3600, id_token: idToken } };
    }
    return { status: 404, body: { error: 'not_found' } };
  });
  base = fake.base;
  return { ...fake, codes, clientId };
}
