import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { httpURL } from './interaction';

/**
 * An app's registered logo, when it is an http(s) URL (any other scheme is never loaded).
 * A logo that does not load (gone, or refused by the page's Content Security Policy) is
 * left out rather than shown broken: the app's name beside it says who it is.
 */
export function AppLogo({ uri, name }: { uri: string | undefined; name: string }) {
  const { t } = useTranslation('signin');
  const src = httpURL(uri);
  const [failed, setFailed] = useState(false);
  if (!src || failed) return null;
  return <img className="app-logo" src={src} alt={t('appLogo', { name })} width={48} height={48} referrerPolicy="no-referrer" onError={() => setFailed(true)} />;
}
