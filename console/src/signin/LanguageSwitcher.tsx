import { useTranslation } from 'react-i18next';
import { Field, Select } from '../ui';
import { i18n, LANGUAGES } from '../i18n';
import { pickLanguage } from '../i18n/language';

/**
 * The language switcher of the public pages and the account page: a labelled select whose
 * options each name their language in that language (English, Deutsch, Français). Its
 * label keeps the English word beside the translated one, so it is found in any language.
 * `onPicked`: after the pick is applied (the account page also saves it to the profile).
 */
export function LanguageSwitcher({ onPicked }: { onPicked?: (language: string) => void }) {
  const { t, i18n: current } = useTranslation('common');
  return (
    <div className="language-switcher">
      <Field label={t('language.label')}>
        {(p) => (
          <Select
            {...p}
            name="language"
            value={current.resolvedLanguage ?? current.language}
            onChange={(event) => {
              pickLanguage(event.target.value);
              onPicked?.(event.target.value);
            }}
          >
            {LANGUAGES.map((language) => (
              <option key={language} value={language} lang={language}>{i18n.getFixedT(language, 'common')('language.name')}</option>
            ))}
          </Select>
        )}
      </Field>
    </div>
  );
}
