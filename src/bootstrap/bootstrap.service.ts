import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { DirectoryRepository } from '../tenancy/directory.repository';
import { TenantService } from '../tenant/tenant.service';

const BOOTSTRAP_LOCK = 'iam-bootstrap';

export interface BootstrapOutcome {
  created: boolean;
  email?: string;
  /** Set only when the password was generated on this start (printed once). */
  generatedPassword?: string;
  credentialsFile?: string;
}

/**
 * On the first start, creates the platform (legacy) tenant in the main database
 * with its default sector and the bootstrap admin, whose username is the email.
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');
  outcome: BootstrapOutcome = { created: false };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(MAIN_DATA_SOURCE) private readonly main: DataSource,
    private readonly directoryRepo: DirectoryRepository,
    private readonly tenants: TenantService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.outcome = await this.ensurePlatform();
  }

  private async ensurePlatform(): Promise<BootstrapOutcome> {
    if (await this.directoryRepo.platformExists()) return { created: false };
    const runner = this.main.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [BOOTSTRAP_LOCK]);
      if (await this.directoryRepo.platformExists()) return { created: false };
      const email = this.config.bootstrapAdminEmail;
      const generated = this.config.bootstrapAdminPassword === undefined ? randomBytes(18).toString('base64url') : undefined;
      await this.tenants.create({
        slug: 'platform',
        name: 'Platform',
        isPlatform: true,
        adminEmail: email,
        adminPassword: this.config.bootstrapAdminPassword ?? generated,
      });
      let credentialsFile: string | undefined;
      if (generated) {
        mkdirSync(this.config.dataDir, { recursive: true });
        credentialsFile = join(this.config.dataDir, 'initial-admin.txt');
        writeFileSync(credentialsFile, `username: ${email}\npassword: ${generated}\n`, { mode: 0o600 });
      }
      this.logger.log(`Created the platform tenant and its admin ${email}`);
      return { created: true, email, generatedPassword: generated, credentialsFile };
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [BOOTSTRAP_LOCK]).catch(() => undefined);
      await runner.release();
    }
  }
}
