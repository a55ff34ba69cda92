import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Principal } from '../access/principal';
import { ScimError } from './scim-error';

/** Each API token's requests a second, sustained, and the burst it may send at once, per instance. */
const RATE_PER_SECOND = 50;
const BURST = 200;
/** Tokens remembered at most (the least recently seen go first). */
const MAX_TOKENS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Throttles SCIM per API token: a token bucket of 200 requests refilled at 50 a
 * second, on each instance, so one directory's full sync cannot starve the
 * sector's sign-ins; past it, 429 in SCIM's error body with Retry-After. Runs after
 * the global guards, so the caller is already the sector's token.
 */
@Injectable()
export class ScimThrottleGuard implements CanActivate {
  private readonly buckets = new Map<string, Bucket>();

  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<{ user?: Principal }>().user;
    if (principal?.kind !== 'apiToken') return true;
    const now = Date.now();
    const key = principal.tokenId;
    const bucket = this.buckets.get(key) ?? { tokens: BURST, at: now };
    this.buckets.delete(key);
    bucket.tokens = Math.min(BURST, bucket.tokens + ((now - bucket.at) / 1000) * RATE_PER_SECOND);
    bucket.at = now;
    if (this.buckets.size >= MAX_TOKENS) this.buckets.delete(this.buckets.keys().next().value as string);
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) throw new ScimError(429, 'Too many SCIM requests with this token; try again shortly.', undefined, Math.ceil((1 - bucket.tokens) / RATE_PER_SECOND));
    bucket.tokens -= 1;
    return true;
  }
}
