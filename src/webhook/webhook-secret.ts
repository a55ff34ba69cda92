import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** Seal purpose of webhook signing secrets (listed in SEALED_COLUMNS, src/cli/reseal-secrets.ts). */
export const WEBHOOK_SECRET_SEAL = 'webhook-signing-secret';

/** How long the previous secret still signs after a rotation. */
export const PREVIOUS_SECRET_HOURS = 24;

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` header of a delivery: `v1,<base64 HMAC-SHA256>` over
 * `{id}.{timestamp}.{body}` per secret (the current one, and during a rotation
 * the previous one too), space-separated. The HMAC is Standard Webhooks' own
 * reference implementation (`standardwebhooks`).
 */
export function signatureHeader(secrets: readonly string[], eventId: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' ');
}
