/**
 * The console's languages: i18next with react-i18next, one catalogue per language and
 * namespace in `locales/{language}/{namespace}.json` (found here by Vite's glob, so a
 * language is added by dropping its folder in — and its code into the server's
 * SHIPPED_LANGUAGES, which a unit spec compares with the folders). Namespaces:
 * `common` (the UI kit, the page frame, the language switcher), `signin` (the public
 * pages), `account` (the account page), `reasons` (the service's refusals), and one
 * per admin area (`admin` for its frame). Every catalogue is in the bundle (a few kilobytes each), so a language
 * switch never waits for the network. Which language a page shows: ./language.ts.
 */
import i18n, { type Resource } from 'i18next';
import { initReactI18next } from 'react-i18next';

const files = import.meta.glob<Record<string, unknown>>('./locales/*/*.json', { eager: true, import: 'default' });

function catalogues(): Resource {
  const resources: Resource = {};
  for (const [path, catalogue] of Object.entries(files)) {
    const [, language, namespace] = /\.\/locales\/([^/]+)\/([^/]+)\.json$/.exec(path) ?? [];
    if (language && namespace) resources[language] = { ...resources[language], [namespace]: catalogue };
  }
  return resources;
}

const resources = catalogues();

/** The languages the console has catalogues for, English first. */
export const LANGUAGES: readonly string[] = Object.keys(resources).sort((a, b) => (a === 'en' ? -1 : b === 'en' ? 1 : a.localeCompare(b)));

/** The catalogue language a tag names (`de-AT` → `de`, `fr_CA` → `fr`), or undefined. */
export function catalogueLanguage(tag: string | null | undefined): string | undefined {
  const primary = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return primary && LANGUAGES.includes(primary) ? primary : undefined;
}

/** Starts i18next in `language`; `<html lang>` follows every change. */
export function startI18n(language: string): void {
  i18n.on('languageChanged', (lng) => {
    document.documentElement.lang = lng;
  });
  void i18n.use(initReactI18next).init({
    resources,
    lng: language,
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    ns: Object.keys(resources.en ?? {}),
    defaultNS: 'common',
    // React escapes what it renders.
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  document.documentElement.lang = language;
}

export { i18n };
