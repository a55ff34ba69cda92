import { ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports';

/** A bare node:http server answering every request with a fixed introspection-sized JSON body: the floor of HTTP on this machine. */
const BARE_SOURCE = `
const http = require('node:http');
const body = JSON.stringify({ sub: 'u', username: 'u', sectorID: 's', isAdmin: false, exp: '0', iat: '0', tenantID: 't' });
http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); }); })
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.send && process.send('ready'));
`;

const OIDC_CLIENT_ID = 'bench-backend';
const OIDC_CLIENT_SECRET = 'bench-backend-secret-0123456789abcdefghijkl';

/**
 * An authorization server on the oidc-provider package (v9, ESM), deployed the way a
 * team would for service-to-service tokens: one confidential client with the
 * client_credentials grant (client_secret_basic), the clientCredentials and
 * introspection features on, opaque access tokens, the default in-memory adapter,
 * an introspection policy that lets a client read only its own tokens.
 */
const OIDC_SOURCE = `
const { default: Provider } = await import('oidc-provider');
const port = Number(process.env.PORT);
const provider = new Provider('http://127.0.0.1:' + port, {
  clients: [{
    client_id: ${JSON.stringify(OIDC_CLIENT_ID)},
    client_secret: ${JSON.stringify(OIDC_CLIENT_SECRET)},
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true, allowedPolicy: async (ctx, client, token) => token.clientId === client.clientId },
  },
  ttl: { ClientCredentials: 3600 },
});
provider.listen(port, '127.0.0.1', () => process.send && process.send('ready'));
`;

export interface Baseline {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function start(args: string[], name: string, runDir: string, cwd: string, path: string): Promise<Baseline> {
  const port = await freePort();
  const out = openSync(join(runDir, `${name}.log`), 'a');
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', out, out, 'ipc'] });
  await new Promise<void>((res, rej) => {
    child.once('message', () => res());
    child.once('exit', (code) => rej(new Error(`${name} exited ${code}; see ${join(runDir, `${name}.log`)}`)));
  });
  return {
    url: `http://127.0.0.1:${port}${path}`,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export function startBareServer(runDir: string, root: string): Promise<Baseline> {
  return start(['-e', BARE_SOURCE], 'baseline-node-http', runDir, root, '/');
}

/** Started with the checkout as working directory, so that `import('oidc-provider')` resolves from its node_modules. */
export function startOidcProvider(runDir: string, root: string): Promise<Baseline> {
  return start(['--input-type=module', '-e', OIDC_SOURCE], 'baseline-oidc-provider', runDir, root, '');
}

/** A client_credentials access token from the oidc-provider baseline. */
export async function oidcToken(base: string): Promise<string> {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: oidcBasicAuth() },
    body: 'grant_type=client_credentials',
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || !body.access_token) throw new Error(`oidc-provider token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

export function oidcBasicAuth(): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(OIDC_CLIENT_ID)}:${encodeURIComponent(OIDC_CLIENT_SECRET)}`).toString('base64')}`;
}
