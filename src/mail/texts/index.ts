import type { Language } from '../../common/languages';
import type { TemplateSet } from '../mail-templates';
import { de } from './de';
import { en } from './en';
import { fr } from './fr';
import { BuiltInKind, LanguageTexts, templateSet } from './mail-copy';

/** The built-in texts of every shipped language (adding one: its file here and its code in src/common/languages.ts). */
export const MAIL_TEXTS: Record<Language, LanguageTexts> = { en, de, fr };

/** The built-in mail of `kind` in `language`, as templates. */
export function builtInMail(language: Language, kind: BuiltInKind): TemplateSet {
  const texts = MAIL_TEXTS[language];
  return templateSet(texts.mails[kind], texts.supportLine);
}

/** A value a mail names (`change`, `factor`, given in English by the caller) in `language`: "email address and phone number" → "E-Mail-Adresse und Telefonnummer". */
export function inLanguage(language: Language, english: string): string {
  const words = MAIL_TEXTS[language].words as Record<string, string>;
  return english
    .split(' and ')
    .map((part) => words[part] ?? part)
    .join(` ${words.and} `);
}
