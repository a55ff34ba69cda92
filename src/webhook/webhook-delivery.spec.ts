import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../config/app-config';
import { retryDelay } from './webhook-queue';
import { newWebhookSecret, signatureHeader } from './webhook-secret';

describe('webhook retry schedule', () => {
  const schedule = [5_000, 300_000, 1_800_000];

  it('waits the scheduled time before each retry, jittered by at most 10 %, then gives up', () => {
    expect(retryDelay(schedule, 1, () => 0.5)).toBe(5_000);
    expect(retryDelay(schedule, 2, () => 0)).toBe(270_000);
    expect(retryDelay(schedule, 3, () => 0.999_999)).toBeLessThanOrEqual(1_980_000);
    expect(retryDelay(schedule, 3, () => 0.999_999)).toBeGreaterThan(1_979_000);
    expect(retryDelay(schedule, 4)).toBeNull();
  });

  it('defaults to the Standard Webhooks reference schedule, tried for over 24 hours', () => {
    const config = loadConfig({ NODE_ENV: 'test' } as NodeJS.ProcessEnv);
    expect(config.webhookRetryScheduleMs).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(config.webhookRetryScheduleMs.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * 3_600_000);
    expect(config.webhookDisableAfterSeconds).toBe(5 * 86_400);
  });

  it('reads WEBHOOK_RETRY_SCHEDULE as durations and refuses anything else', () => {
    expect(loadConfig({ NODE_ENV: 'test', WEBHOOK_RETRY_SCHEDULE: '200ms, 1s,2m,1h' } as NodeJS.ProcessEnv).webhookRetryScheduleMs).toEqual([200, 1_000, 120_000, 3_600_000]);
    for (const bad of ['5', '5d', '-1s', '0ms', '200ms,,1s', '8000000s']) {
      expect(() => loadConfig({ NODE_ENV: 'test', WEBHOOK_RETRY_SCHEDULE: bad } as NodeJS.ProcessEnv)).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    }
  });
});

describe('webhook signatures', () => {
  const body = JSON.stringify({ type: 'user.created', timestamp: '2026-11-28T08:00:00.000Z', data: { tenantID: 't', sectorID: 's', userID: 'u' } });
  const at = new Date();
  const headers = (signature: string) => ({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature });

  it('are whsec_ secrets of 32 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('verify with the standardwebhooks package; during a rotation both secrets sign, space-separated', () => {
    const current = newWebhookSecret();
    const previous = newWebhookSecret();
    const one = signatureHeader([current], 'msg_1', at, body);
    expect(one).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(new Webhook(current).verify(body, headers(one))).toEqual(JSON.parse(body));
    const both = signatureHeader([current, previous], 'msg_1', at, body);
    expect(both.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers(both))).toBeTruthy();
    expect(new Webhook(previous).verify(body, headers(both))).toBeTruthy();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers(both))).toThrow();
    expect(() => new Webhook(current).verify(body.replace('"u"', '"v"'), headers(both))).toThrow();
  });
});
