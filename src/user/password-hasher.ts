import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { BcryptWorkers } from './bcrypt-workers';

/**
 * bcrypt at the configured cost, on BCRYPT_WORKERS dedicated threads at a lower
 * priority than the event loop (BcryptWorkers), so a login storm cannot starve
 * the other requests. `verifyOrWaste` spends the same time on a dummy hash when
 * there is no user, so an unknown user answers like a wrong password.
 */
@Injectable()
export class PasswordHasher implements OnModuleInit, OnApplicationShutdown {
  private dummyHash = '';
  private readonly workers: BcryptWorkers;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.workers = new BcryptWorkers(config.bcryptWorkers, config.bcryptNice);
  }

  async onModuleInit(): Promise<void> {
    this.dummyHash = await this.hash('dummy-password-for-timing');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.workers.close();
  }

  hash(password: string): Promise<string> {
    return this.workers.hash(password, this.config.bcryptCost);
  }

  /** True when `password` matches `hash`; with no hash, burns a comparison and answers false. */
  async verifyOrWaste(password: string, hash: string | null | undefined): Promise<boolean> {
    if (!hash) {
      await this.workers.compare(password, this.dummyHash);
      return false;
    }
    return this.workers.compare(password, hash);
  }
}
