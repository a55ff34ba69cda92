import { Directory1763700000000 } from './1763700000000-directory';
import { Extensions1763700000010 } from './1763700000010-extensions';
import { Throttle1763700000011 } from './1763700000011-throttle';
import { OutboxPending1763700000012 } from './1763700000012-outbox-pending';
import { SectorOrigins1763700000013 } from './1763700000013-sector-origins';
import { TenantDatabaseServer1763700000014 } from './1763700000014-tenant-database-server';
import { AuthChangeHints1763700000015 } from './1763700000015-auth-change-hints';
import { TenantMoves1763700000016 } from './1763700000016-tenant-moves';
import { TenantRsaKey1763700000017 } from './1763700000017-tenant-rsa-key';

/** Migrations of the main database's directory tables, in order. */
export const MAIN_MIGRATIONS = [Directory1763700000000, Extensions1763700000010, Throttle1763700000011, OutboxPending1763700000012, SectorOrigins1763700000013, TenantDatabaseServer1763700000014, AuthChangeHints1763700000015, TenantMoves1763700000016, TenantRsaKey1763700000017];
