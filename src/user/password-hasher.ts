import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import * as bcrypt from 'bcrypt';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/**
 * bcrypt at the configured cost; the native binding hashes on libuv's thread pool,
 * off the event loop. `verifyOrWaste` spends the same time on a dummy hash when
 * there is no user, so an unknown user answers like a wrong password.
 */
@Injectable()
export class PasswordHasher implements OnModuleInit {
  private dummyHash = '';

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async onModuleInit(): Promise<void> {
    this.dummyHash = await bcrypt.hash('dummy-password-for-timing', this.config.bcryptCost);
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.config.bcryptCost);
  }

  /** True when `password` matches `hash`; with no hash, burns a comparison and answers false. */
  async verifyOrWaste(password: string, hash: string | null | undefined): Promise<boolean> {
    if (!hash) {
      await bcrypt.compare(password, this.dummyHash);
      return false;
    }
    return bcrypt.compare(password, hash);
  }
}
