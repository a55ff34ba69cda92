/** A short description of a delivery failure for `last_error`: no URLs (they may carry credentials), one line. */
export function describeDeliveryError(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; responseCode?: unknown; cause?: { code?: unknown; message?: unknown } };
  let text = typeof e?.message === 'string' ? e.message : String(err);
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  if (code && !text.includes(code)) text = `${text} (${code})`;
  return text
    .replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}
