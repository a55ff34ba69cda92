/** Small fetch helpers for the benchmark's setup calls (they throw on a non-2xx answer). */

export type Json = Record<string, unknown>;

export async function call(method: string, url: string, body?: unknown, token?: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json = {};
  try {
    parsed = text ? (JSON.parse(text) as Json) : {};
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed };
}

export async function ok(method: string, url: string, body?: unknown, token?: string): Promise<Json> {
  const res = await call(method, url, body, token);
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The payload of a JWT, unverified (the benchmark only needs `sub`). */
export function jwtClaims(token: string): Json {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Json;
}
