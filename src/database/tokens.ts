/** Injection token: URL of the main PostgreSQL database (external, or the embedded one). */
export const MAIN_DATABASE_URL = Symbol('MAIN_DATABASE_URL');
/** Injection token: the initialised DataSource of the main database. */
export const MAIN_DATA_SOURCE = Symbol('MAIN_DATA_SOURCE');
/** Injection token: the entity lists (EntityLists) the composition root built from the feature modules. */
export const ENTITY_LISTS = Symbol('ENTITY_LISTS');
