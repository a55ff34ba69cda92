import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { OutboundFetch, outboundFetch } from '../common/http/outbound';
import { describeDeliveryError } from '../outbox/delivery-error';
import { signatureHeader } from './webhook-secret';

/** An endpoint has this long to answer a delivery. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** How one attempt went: `ok` for any 2xx; `status` null when no HTTP answer came (refused, timed out, redirected). */
export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string;
}

/** What one attempt sends. */
export interface OutgoingDelivery {
  url: string;
  eventId: string;
  body: string;
  /** The endpoint's signing secrets (`whsec_…`): the current one, and the previous one during a rotation. */
  secrets: string[];
}

/**
 * POSTs a delivery as Standard Webhooks says: the JSON body, `webhook-id`,
 * `webhook-timestamp` (this attempt's, Unix seconds) and `webhook-signature`.
 * Outbound rules (src/common/http/outbound.ts): https only, public addresses
 * only, checked on the address actually connected to (no DNS rebinding); no
 * redirect followed; OUTBOUND_ALLOW_PRIVATE_NETWORKS lifts the first two.
 */
@Injectable()
export class WebhookSender {
  private readonly fetch: OutboundFetch;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.fetch = outboundFetch({
      allowLoopback: false,
      allowPrivateNetworks: config.outboundAllowPrivateNetworks,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
    });
  }

  async send(delivery: OutgoingDelivery): Promise<AttemptResult> {
    const at = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'iam-webhooks/1',
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatureHeader(delivery.secrets, delivery.eventId, at, delivery.body),
    };
    let res: Response;
    try {
      res = await this.fetch(delivery.url, { method: 'POST', headers, body: delivery.body });
    } catch (err) {
      return { ok: false, status: null, error: isTimeout(err) ? `No answer within ${WEBHOOK_TIMEOUT_MS / 1000} s.` : describeDeliveryError(err) };
    }
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? '' : `HTTP ${res.status}` };
  }
}

/** The request was cut off by its time limit (the only signal it has). */
function isTimeout(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown };
  return e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.code === 'ABORT_ERR';
}
