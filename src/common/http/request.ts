import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';

/**
 * The parts of an incoming HTTP request this service reads. Structural, so no
 * HTTP-adapter type leaks outside main.ts (HOUSE-RULES §8).
 */
export interface IncomingRequest {
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string | undefined>;
  query: Record<string, unknown>;
  body?: unknown;
  ip?: string;
  method?: string;
  url?: string;
  originalUrl?: string;
  requestId?: string;
  principal?: Principal;
}

export interface OutgoingResponse {
  setHeader(name: string, value: string): unknown;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Keeps a well-formed incoming X-Request-Id for tracing, otherwise makes one. */
export function ensureRequestId(req: IncomingRequest): string {
  if (req.requestId) return req.requestId;
  const incoming = req.headers['x-request-id'];
  const value = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  req.requestId = value;
  return value;
}

export function headerValue(req: IncomingRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}
