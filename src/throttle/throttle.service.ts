import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { ThrottleRepository } from './throttle.repository';
import { Metrics } from '../metrics/metrics.service';
import { accountKey, addressKey, delaySchedule, GuessKind, ThrottleKind } from './throttle-policy';

/** Who is attempting: the resolved account (see accountRef) and the client address. */
export interface ThrottleSubject {
  tenantId: string;
  sectorId: string;
  /** `accountRef(user?.id, login)`: the user's id when known, else the normalised login; empty for address-only kinds. */
  account: string;
  clientIp: string;
}

/** A guess counted before it was checked: `succeeded` when it was right, `cancel` when it was never answered. */
export interface Reservation {
  succeeded(): Promise<void>;
  cancel(): Promise<void>;
}

interface KeyLimits {
  key: string;
  freeAttempts: number;
  /** Released by a success (the address); the account is reset instead. */
  account: boolean;
}

const PURGE_PROBABILITY = 0.01;
const PURGE_BATCH = 1000;

/**
 * Slows down guessing and abuse, per account and per client address, with
 * counters shared by every instance. An attempt is checked and counted in one
 * statement (all its keys at once) before any work is done for it, so a burst of parallel
 * attempts reaches the check at most the allowance's number of times. Past the
 * allowance each attempt blocks the key for a delay that doubles up to a cap —
 * never a lock that only an admin could lift — and the delay is the RetryInfo of
 * the refusal.
 */
@Injectable()
export class ThrottleService {
  private readonly logger = new Logger('Throttle');
  /** Delays by attempts past the allowance; the same for every kind of key. */
  private readonly schedule: number[];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly counters: ThrottleRepository,
    private readonly metrics: Metrics,
  ) {
    this.schedule = delaySchedule({ baseDelaySeconds: config.throttleBaseDelaySeconds, maxDelaySeconds: config.throttleMaxDelaySeconds });
  }

  /**
   * Reserves one guess (a password or a code) on the account and the address, or
   * refuses with RESOURCE_EXHAUSTED / TOO_MANY_ATTEMPTS. A wrong guess needs
   * nothing more: it was counted. A right one calls `succeeded`, which clears the
   * account's count and gives the address its attempt back (one good login must
   * not launder a spray, nor count against it).
   */
  async reserve(subject: ThrottleSubject, kind: GuessKind): Promise<Reservation> {
    const keys = this.keys(subject, kind);
    await this.take(kind, keys, Reason.TOO_MANY_ATTEMPTS, 'Too many failed attempts; try again later.');
    return {
      succeeded: async () => {
        await this.counters.settle(
          keys.filter((k) => k.account).map((k) => k.key),
          keys.filter((k) => !k.account),
        );
      },
      cancel: async () => {
        await this.counters.settle([], keys);
      },
    };
  }

  /**
   * Counts one event of a rate-limited kind (new sign-in flows without a factor,
   * signups, codes sent to new factor registrations), or refuses with
   * RESOURCE_EXHAUSTED / RATE_LIMITED.
   */
  async count(subject: Pick<ThrottleSubject, 'clientIp'> & Partial<ThrottleSubject>, kind: Exclude<ThrottleKind, GuessKind>): Promise<void> {
    const keys = this.keys({ tenantId: '', sectorId: '', account: '', ...subject }, kind);
    await this.take(kind, keys, Reason.RATE_LIMITED, 'Too many requests; try again later.');
  }

  private async take(kind: ThrottleKind, keys: KeyLimits[], reason: string, message: string): Promise<void> {
    const waits = await this.counters.reserve(keys, this.schedule, this.config.throttleWindowSeconds);
    if (Math.random() < PURGE_PROBABILITY) {
      void this.counters
        .purgeIdle(this.config.throttleWindowSeconds, PURGE_BATCH)
        .catch((err: unknown) => this.logger.warn(`Purging idle counters failed: ${String(err)}`));
    }
    const wait = Math.max(0, ...waits);
    if (wait === 0) return;
    // Refused: the keys that did count this attempt give it back.
    await this.counters.settle([], keys.filter((_, i) => waits[i] === 0));
    this.metrics.throttleBlocks.inc({ kind, reason });
    throw new DomainError(ErrorCode.RESOURCE_EXHAUSTED, reason, message, { retryAfterSeconds: wait });
  }

  private keys(subject: ThrottleSubject, kind: ThrottleKind): KeyLimits[] {
    const limits = this.limits(kind);
    const keys: KeyLimits[] = [];
    if (limits.account !== undefined && subject.account) {
      keys.push({ key: accountKey(kind, subject.tenantId, subject.sectorId, subject.account), freeAttempts: limits.account, account: true });
    }
    const address = addressKey(kind, subject.clientIp);
    if (address) keys.push({ key: address, freeAttempts: limits.address, account: false });
    return keys;
  }

  /** The allowances of a kind: per account (undefined: not counted per account) and per address. */
  private limits(kind: ThrottleKind): { account?: number; address: number } {
    const c = this.config;
    switch (kind) {
      case 'password':
      case 'code':
        return { account: c.throttleAccountFreeAttempts, address: c.throttleAddressFreeAttempts };
      case 'flow':
        return { address: c.throttleFlowAddressFree };
      case 'signup':
        return { address: c.throttleSignupAddressFree };
      case 'send':
      case 'link':
        // Account links mail the account like a code does: the same allowances, counted apart.
        return { account: c.throttleSendUserFree, address: c.throttleSendAddressFree };
    }
  }
}
