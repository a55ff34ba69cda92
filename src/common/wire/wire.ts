/** Helpers for the JSON conventions (docs/api.md, Overview). */

/** An int64 as the wire carries it: a decimal string. */
export function int64(value: number | bigint | string | null | undefined): string {
  if (value === null || value === undefined) return '0';
  return typeof value === 'string' ? value : String(typeof value === 'number' ? Math.trunc(value) : value);
}

/** A timestamp as Unix seconds in an int64 string; never-set is "0". */
export function unixSeconds(date: Date | null | undefined): string {
  if (!date) return '0';
  return String(Math.floor(date.getTime() / 1000));
}

/** Accepts standard or URL-safe base64, padded or not; undefined when the text is not base64. */
export function fromBase64(text: string): Buffer | undefined {
  const normalized = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(normalized) || normalized.length % 4 === 1) return undefined;
  return Buffer.from(normalized, 'base64');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
