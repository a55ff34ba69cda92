/**
 * The languages the service ships: its public pages and console have a catalogue for
 * each (console/src/i18n/locales/{code}), and its mails a text for each (src/mail/texts).
 * Adding one means adding both and its code here; a test checks that the three agree.
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
