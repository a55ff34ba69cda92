/**
 * Which language a page shows, first match wins: the signed-in user's profile `locale`
 * (the account page reads it) → the language picked with the page's switcher (kept in
 * localStorage: not a secret) → the browser's languages (`navigator.languages`) → the
 * sector's `defaultLanguage` (its sign-in options) → English. Pages report what they
 * know (useUserLanguage, useSectorLanguage); the language changes when the answer does.
 */
import { useEffect } from 'react';
import { catalogueLanguage, i18n, startI18n } from '.';

const PICKED_KEY = 'iam.language';

const known: { userLocale?: string; sectorDefault?: string } = {};

function pickedLanguage(): string | undefined {
  try {
    return catalogueLanguage(localStorage.getItem(PICKED_KEY));
  } catch {
    return undefined;
  }
}

function browserLanguage(): string | undefined {
  const tags = navigator.languages?.length ? navigator.languages : [navigator.language];
  return tags.map(catalogueLanguage).find((language) => language !== undefined);
}

function chosenLanguage(): string {
  return catalogueLanguage(known.userLocale) ?? pickedLanguage() ?? browserLanguage() ?? catalogueLanguage(known.sectorDefault) ?? 'en';
}

function follow(): void {
  const language = chosenLanguage();
  if (i18n.language !== language) void i18n.changeLanguage(language);
}

/** Starts the catalogues in the language known before anything is loaded (the pick, the browser's). */
export function startLanguage(): void {
  startI18n(chosenLanguage());
}

/** The user picked a language with the switcher: remembered in this browser. */
export function pickLanguage(language: string): void {
  try {
    localStorage.setItem(PICKED_KEY, language);
  } catch {
    // Storage may be disabled: the pick then holds for this page only.
  }
  if (catalogueLanguage(known.userLocale) !== undefined) known.userLocale = language;
  follow();
}

/** A reporter of one input while the component shows: the value is forgotten when it goes. */
function useKnown(name: keyof typeof known, value: string | undefined): void {
  useEffect(() => {
    known[name] = value;
    follow();
    return () => {
      known[name] = undefined;
      follow();
    };
  }, [name, value]);
}

/** The signed-in user's profile locale (the account page). */
export function useUserLanguage(locale: string | undefined): void {
  useKnown('userLocale', locale);
}

/** The sector's default language (the public pages, from its sign-in options). */
export function useSectorLanguage(defaultLanguage: string | undefined): void {
  useKnown('sectorDefault', defaultLanguage);
}
