/**
 * The languages the service ships: its mails have a built-in text in each
 * (src/mail/texts, checked by a test), and a sector's DefaultLanguage and per-language
 * templates name one of them. Adding one means adding its texts and its code here.
 */
export const SHIPPED_LANGUAGES = ['en', 'de', 'fr'] as const;

export type Language = (typeof SHIPPED_LANGUAGES)[number];

export function isShippedLanguage(code: unknown): code is Language {
  return typeof code === 'string' && (SHIPPED_LANGUAGES as readonly string[]).includes(code);
}

/**
 * The shipped language a language tag names (`de-AT` → `de`, `fr_CA` → `fr`, `EN` → `en`),
 * or undefined when it names none of them (or is empty).
 */
export function matchLanguage(tag: string | null | undefined): Language | undefined {
  if (!tag) return undefined;
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return isShippedLanguage(primary) ? primary : undefined;
}
