import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { headerValue, IncomingRequest } from '../common/http/request';

/** The browser-session cookie's name; its Path (one per sector) keeps sectors apart. */
const SESSION_COOKIE = 'iam_session';

/** The path the cookie of a sector is scoped to: only the browser-session routes of that sector ever receive it. */
function sessionCookiePath(sectorID: string): string {
  return `/api/v1/browser-sessions/${encodeURIComponent(sectorID)}`;
}

/** A cookie's value from the `Cookie` header (the first of that name), or undefined. */
function cookieValue(req: IncomingRequest, name: string): string | undefined {
  const header = headerValue(req, 'cookie');
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * Reads and writes the browser-session cookie through Nest's HTTP adapter (a
 * `Set-Cookie` header), so it works on Express and Fastify alike: HttpOnly (no
 * page script reads it), SameSite=Strict (no other site's page sends it), Secure
 * when PUBLIC_URL is https, scoped to the sector's browser-session path.
 */
@Injectable()
export class SessionCookies {
  private readonly secure: boolean;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.secure = config.publicUrl.startsWith('https:');
  }

  read(req: IncomingRequest): string | undefined {
    return cookieValue(req, SESSION_COOKIE);
  }

  /** Sets the cookie to `value` until `until` (Max-Age, whole seconds). */
  set(res: unknown, sectorID: string, value: string, until: Date): void {
    const maxAge = Math.max(0, Math.floor((until.getTime() - Date.now()) / 1000));
    this.write(res, sectorID, value, maxAge);
  }

  /** Tells the browser to drop the cookie. */
  clear(res: unknown, sectorID: string): void {
    this.write(res, sectorID, '', 0);
  }

  private write(res: unknown, sectorID: string, value: string, maxAge: number): void {
    const attributes = [`${SESSION_COOKIE}=${value}`, `Path=${sessionCookiePath(sectorID)}`, `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Strict'];
    if (this.secure) attributes.push('Secure');
    this.adapterHost.httpAdapter.setHeader(res, 'Set-Cookie', attributes.join('; '));
  }
}
