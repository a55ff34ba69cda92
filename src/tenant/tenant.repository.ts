import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation } from '../common/errors/db-errors';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { TenantEntity } from '../tenancy/tenant.entity';

/** Writes of the tenant directory in the main database (reads go through TenantDirectory). */
@Injectable()
export class TenantRepository {
  constructor(@Inject(MAIN_DATA_SOURCE) private readonly main: DataSource) {}

  /** Inserts the tenant row in `em`'s transaction; a taken slug is ALREADY_EXISTS. */
  async insert(em: EntityManager, tenant: TenantEntity): Promise<void> {
    try {
      await em.getRepository(TenantEntity).insert(tenant);
    } catch (err) {
      if (isUniqueViolation(err, 'tenants_slug_key')) {
        throw DomainError.alreadyExists(Reason.TENANT_SLUG_TAKEN, `A tenant with slug "${tenant.slug}" already exists.`);
      }
      throw err;
    }
  }

  /** The stored row, uncached. */
  findById(id: string): Promise<TenantEntity | null> {
    return this.main.getRepository(TenantEntity).findOneBy({ id });
  }
}
