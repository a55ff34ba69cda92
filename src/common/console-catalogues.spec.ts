/**
 * The console's message catalogues (console/src/i18n/locales/{language}/{namespace}.json)
 * against the shipped languages: one folder per shipped language, and in every language the
 * same namespaces, the same keys (plural forms compared by their base key, as languages have
 * different plural categories), and in each message the same interpolation variables.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHIPPED_LANGUAGES } from './languages';

const LOCALES = join(__dirname, '..', '..', 'console', 'src', 'i18n', 'locales');

type Catalogue = { [key: string]: string | Catalogue };

const PLURAL = /_(zero|one|two|few|many|other)$/;

/** Every message of a catalogue by its dotted key. */
function flatten(catalogue: Catalogue, prefix = ''): Map<string, string> {
  const messages = new Map<string, string>();
  for (const [key, value] of Object.entries(catalogue)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') messages.set(path, value);
    else for (const [inner, text] of flatten(value, path)) messages.set(inner, text);
  }
  return messages;
}

/** A language's messages, `namespace:key` → text. */
function messagesOf(language: string): Map<string, string> {
  const messages = new Map<string, string>();
  for (const file of readdirSync(join(LOCALES, language)).filter((name) => name.endsWith('.json'))) {
    const catalogue = JSON.parse(readFileSync(join(LOCALES, language, file), 'utf8')) as Catalogue;
    for (const [key, text] of flatten(catalogue)) messages.set(`${file.replace(/\.json$/, '')}:${key}`, text);
  }
  return messages;
}

/** The keys, plural forms folded into their base key. */
const keysOf = (messages: Map<string, string>) => [...new Set([...messages.keys()].map((key) => key.replace(PLURAL, '')))].sort();

/** The variables of a message (`{{name}}`) and the components of a Trans message (`<code>`), sorted. */
const placeholders = (text: string) => [...new Set([...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}|<(\w+)>/g)].map((m) => m[1] ?? `<${m[2]}>`))].sort();

/** Each base key's placeholders (the union over its plural forms; `count` is what picks the form). */
function placeholdersByKey(messages: Map<string, string>): Record<string, string[]> {
  const byKey: Record<string, Set<string>> = {};
  for (const [key, text] of messages) {
    const base = key.replace(PLURAL, '');
    byKey[base] ??= new Set(PLURAL.test(key) ? ['count'] : []);
    for (const name of placeholders(text)) byKey[base].add(name);
  }
  return Object.fromEntries(Object.entries(byKey).map(([key, names]) => [key, [...names].sort()]));
}

const languages = readdirSync(LOCALES, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
const english = messagesOf('en');

describe('console catalogues', () => {
  it('exist for exactly the shipped languages', () => {
    expect([...languages].sort()).toEqual([...SHIPPED_LANGUAGES].sort());
  });

  it.each(languages.filter((language) => language !== 'en'))('%s has the keys and variables of English, and no others', (language) => {
    const mine = messagesOf(language);
    expect(keysOf(mine)).toEqual(keysOf(english));
    expect(placeholdersByKey(mine)).toEqual(placeholdersByKey(english));
  });

  it.each(languages)('%s has both plural forms every language needs (one, other) wherever it has plurals', (language) => {
    const keys = [...messagesOf(language).keys()];
    for (const key of keys.filter((k) => PLURAL.test(k))) {
      const base = key.replace(PLURAL, '');
      expect([keys.includes(`${base}_one`), keys.includes(`${base}_other`)]).toEqual([true, true]);
    }
  });

  it.each(languages)('%s names itself and labels the switcher', (language) => {
    const mine = messagesOf(language);
    expect(mine.get('common:language.name')).toBeTruthy();
    expect(mine.get('common:language.label')).toContain('Language');
  });

  it.each(languages.filter((language) => language !== 'en'))('%s translates (at most a few words equal the English)', (language) => {
    const mine = messagesOf(language);
    const same = [...english].filter(([key, text]) => mine.get(key) === text && text.length > 20);
    expect(same).toEqual([]);
  });
});
