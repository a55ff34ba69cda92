import { Directory1763700000000 } from './1763700000000-directory';

/** Migrations of the main database's directory tables, in order. */
export const MAIN_MIGRATIONS = [Directory1763700000000];
