import { Inject, Injectable, Logger } from '@nestjs/common';
import { callExtensionHook, extensionHookFailed, HookUser } from '../common/extensions/extension-hook';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { RESERVED_CLAIMS } from './access-token.service';

/** What a claims contributor is told about the token being issued. */
export interface TokenClaimsContext {
  tenantID: string;
  sectorID: string;
  user: HookUser;
}

/**
 * An extension module's contributor of access-token claims: answers the claims to
 * add (JSON values), or `{}`. Called for every access token of a user (sign-in,
 * refresh, re-authentication).
 */
export type ClaimsContributor = (context: TokenClaimsContext) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** The most the claims of all contributors together may weigh in a token, as JSON (UTF-8 bytes). */
export const EXTENSION_CLAIMS_MAX_BYTES = 2048;
/** How deep a claim's value may nest (objects and arrays). */
const MAX_DEPTH = 8;

interface Contributor {
  name: string;
  contribute: ClaimsContributor;
}

/**
 * The claims extension modules add to access tokens (docs/extending.md). Reserved
 * claims (RESERVED_CLAIMS) are ignored and logged, once per contributor and claim.
 * A contributor that throws, answers late or answers anything but an object of
 * JSON values fails safe: no token is issued (UNAVAILABLE). So do claims over
 * EXTENSION_CLAIMS_MAX_BYTES together. Of two contributors setting one claim, the
 * one registered later wins.
 */
@Injectable()
export class TokenClaims {
  private readonly logger = new Logger('Extensions');
  private readonly contributors: Contributor[] = [];
  private readonly warned = new Set<string>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  add(name: string, contribute: ClaimsContributor): void {
    this.contributors.push({ name, contribute });
  }

  /** Does any extension module contribute claims? (Nothing is asked of anyone when not.) */
  get active(): boolean {
    return this.contributors.length > 0;
  }

  /** Every contributor's claims, merged in registration order, without the reserved ones. */
  async collect(context: TokenClaimsContext): Promise<Record<string, unknown>> {
    const answers = await Promise.all(
      this.contributors.map((c) => callExtensionHook(this.logger, c.name, c.contribute, context, this.config.extensionHookTimeoutMs)),
    );
    const claims = new Map<string, unknown>();
    answers.forEach((answer, i) => {
      const { name } = this.contributors[i];
      if (!isPlainObject(answer)) throw extensionHookFailed(this.logger, name, 'a claims contributor must answer an object of claims');
      for (const [claim, value] of Object.entries(answer)) {
        if (RESERVED_CLAIMS.has(claim)) {
          this.warnReserved(name, claim);
          continue;
        }
        if (!isJson(value, 0)) throw extensionHookFailed(this.logger, name, `the value of claim "${claim}" is not JSON (null, booleans, finite numbers, strings, arrays and plain objects up to ${MAX_DEPTH} deep)`);
        claims.set(claim, value);
      }
    });
    const merged = Object.fromEntries(claims);
    const bytes = Buffer.byteLength(JSON.stringify(merged));
    if (bytes > EXTENSION_CLAIMS_MAX_BYTES) {
      throw extensionHookFailed(this.logger, this.contributors.map((c) => c.name).join(', '), `the claims weigh ${bytes} bytes, over ${EXTENSION_CLAIMS_MAX_BYTES}`);
    }
    return merged;
  }

  private warnReserved(name: string, claim: string): void {
    const key = `${name}\u0000${claim}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(`Extension claims contributor "${name}" set the reserved claim "${claim}": ignored`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

function isJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      if (value === null) return true;
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) return value.every((v) => isJson(v, depth + 1));
      return isPlainObject(value) && Object.values(value).every((v) => isJson(v, depth + 1));
    default:
      return false;
  }
}
