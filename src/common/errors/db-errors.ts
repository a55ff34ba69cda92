/** Recognises PostgreSQL / network failures that mean "the database cannot be reached". */
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '3D000']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', 'EAI_AGAIN']);
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is not established',
  'the database system is shutting down',
  'the database system is starting up',
  // TypeORM's answers when a transaction's connection was ended under it (what runs next, or its rollback, finds the runner released).
  'Query runner already released',
  'Database connection provided by a query runner was already released',
];

function driverErrorOf(err: unknown): Record<string, unknown> | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as Record<string, unknown>;
  if (typeof e.driverError === 'object' && e.driverError !== null) return e.driverError as Record<string, unknown>;
  return e;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = driverErrorOf(err);
  if (!e) return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (code.startsWith('08') || CONNECTION_SQLSTATES.has(code) || NETWORK_CODES.has(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return CONNECTION_MESSAGES.some((m) => message.includes(m));
}

/** SQLSTATE of a failed query (unique_violation is 23505), if any. */
export function sqlStateOf(err: unknown): string | undefined {
  const e = driverErrorOf(err);
  return e && typeof e.code === 'string' ? e.code : undefined;
}

/**
 * Runs a write and turns a unique violation of one of `constraints` into the
 * domain error it stands for (a taken slug, username, email…); anything else
 * passes through. Repositories wrap their writes with it, so the translation
 * from constraint names lives beside the SQL that names them.
 */
export async function translatingUniqueViolations<T>(write: () => Promise<T>, constraints: Record<string, () => Error>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const e = driverErrorOf(err);
    if (e?.code === '23505' && typeof e.constraint === 'string' && constraints[e.constraint]) throw constraints[e.constraint]();
    throw err;
  }
}
