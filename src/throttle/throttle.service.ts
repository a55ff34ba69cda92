import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { ThrottleRepository } from './throttle.repository';
import { accountKey, addressKey, delaySchedule, ThrottleKind } from './throttle-policy';

/** Who is attempting: the account as typed and the client address. */
export interface ThrottleSubject {
  tenantId: string;
  sectorId: string;
  /** The login as typed (or the transaction's username), so unknown users count like real ones. */
  login: string;
  clientIp: string;
}

interface KeyLimits {
  key: string;
  freeAttempts: number;
}

const PURGE_PROBABILITY = 0.01;
const PURGE_BATCH = 1000;

/**
 * Slows down guessing of passwords and one-time codes, per account and per client
 * address, with counters shared by every instance. Past a free allowance each
 * failure blocks the key for a delay that doubles up to a cap — never a lock
 * that only an admin could lift — and the delay is the RetryInfo of the refusal.
 */
@Injectable()
export class ThrottleService {
  private readonly logger = new Logger('Throttle');
  /** Delays by failures past the allowance; the same for both kinds of key. */
  private readonly schedule: number[];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly counters: ThrottleRepository,
  ) {
    this.schedule = delaySchedule({ baseDelaySeconds: config.throttleBaseDelaySeconds, maxDelaySeconds: config.throttleMaxDelaySeconds });
  }

  /** Throws RESOURCE_EXHAUSTED (TOO_MANY_ATTEMPTS, RetryInfo) when the account or the address is currently blocked. */
  async assertAllowed(subject: ThrottleSubject, kind: ThrottleKind): Promise<void> {
    const seconds = await this.counters.blockedFor(this.keys(subject, kind).map((k) => k.key));
    if (seconds > 0) {
      throw new DomainError(ErrorCode.RESOURCE_EXHAUSTED, Reason.TOO_MANY_ATTEMPTS, 'Too many failed attempts; try again later.', {
        retryAfterSeconds: seconds,
      });
    }
  }

  /** Counts a failed attempt on the account and on the address. */
  async recordFailure(subject: ThrottleSubject, kind: ThrottleKind): Promise<void> {
    await Promise.all(this.keys(subject, kind).map((k) => this.counters.countFailure(k.key, k.freeAttempts, this.schedule, this.config.throttleWindowSeconds)));
    if (Math.random() < PURGE_PROBABILITY) {
      void this.counters.purgeIdle(this.config.throttleWindowSeconds, PURGE_BATCH).catch((err: unknown) => this.logger.warn(`Purging idle counters failed: ${String(err)}`));
    }
  }

  /** A success clears the account's count; the address keeps its count (one good login must not launder a spray). */
  async recordSuccess(subject: ThrottleSubject, kind: ThrottleKind): Promise<void> {
    await this.counters.reset(this.accountKey(subject, kind));
  }

  private accountKey(subject: ThrottleSubject, kind: ThrottleKind): string {
    return accountKey(kind, subject.tenantId, subject.sectorId, subject.login);
  }

  private keys(subject: ThrottleSubject, kind: ThrottleKind): KeyLimits[] {
    const keys: KeyLimits[] = [{ key: this.accountKey(subject, kind), freeAttempts: this.config.throttleAccountFreeAttempts }];
    const address = addressKey(kind, subject.clientIp);
    if (address) keys.push({ key: address, freeAttempts: this.config.throttleAddressFreeAttempts });
    return keys;
  }
}
