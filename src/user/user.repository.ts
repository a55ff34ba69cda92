import { Injectable } from '@nestjs/common';
import { TenantDb } from '../common/tenancy/tenant-db';
import { UserEntity } from './user.entity';

export interface UserAuthState {
  id: string;
  sectorId: string;
  username: string;
  isAdmin: boolean;
}

/** Users of a tenant; every method takes the tenant's database handle first. */
@Injectable()
export class UserRepository {
  findById(db: TenantDb, id: string): Promise<UserEntity | null> {
    return db.manager.getRepository(UserEntity).findOneBy({ id });
  }

  /**
   * What authorisation needs of a user, by id: one indexed read, no ORM
   * hydration (this runs on every authenticated request).
   */
  async findAuthState(db: TenantDb, id: string): Promise<UserAuthState | null> {
    const rows: UserAuthState[] = await db.manager.query(
      'SELECT id, sector_id AS "sectorId", username, is_admin AS "isAdmin" FROM users WHERE id = $1',
      [id],
    );
    return rows[0] ?? null;
  }

  /** The user of `sectorId` whose username or email equals `login`, case-insensitively. */
  findByLogin(db: TenantDb, sectorId: string, login: string): Promise<UserEntity | null> {
    return db.manager
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .where('u.sector_id = :sectorId', { sectorId })
      .andWhere("(lower(u.username) = lower(:login) OR (u.email <> '' AND lower(u.email) = lower(:login)))", { login })
      .orderBy('lower(u.username) = lower(:login)', 'DESC')
      .limit(1)
      .getOne();
  }

  async insert(db: TenantDb, user: UserEntity): Promise<void> {
    await db.manager.getRepository(UserEntity).insert(user);
  }

  async counts(db: TenantDb): Promise<{ userCount: number; adminCount: number }> {
    const [row] = await db.manager.query('SELECT count(*)::int AS "userCount", count(*) FILTER (WHERE is_admin)::int AS "adminCount" FROM users');
    return row;
  }
}
