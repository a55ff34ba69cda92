/**
 * A sector's look on its public pages and account page, from its sign-in options'
 * `branding`: its colours as CSS custom properties on the document (set from script,
 * which the strict content security policy allows, unlike inline styles), its favicon,
 * its logo and name in the header, and its legal and support links at the foot.
 * The colours were checked for contrast by the service when they were saved.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { sectorSignInOptions, type SignInOptions } from '../auth/signInOptions';

export type Branding = SignInOptions['branding'];

/** The custom properties theme.css reads (`--brand-*`), per mode, from the sector's colours ('' leaves the theme's own). */
function brandProperties(b: Branding): Record<string, string> {
  return {
    '--brand-accent-light': b.primaryColor,
    '--brand-accent-text-light': b.primaryTextColor,
    '--brand-bg-light': b.backgroundColor,
    '--brand-accent-dark': b.primaryColorDark,
    '--brand-accent-text-dark': b.primaryTextColorDark,
    '--brand-bg-dark': b.backgroundColorDark,
  };
}

/** Applies the sector's colours and favicon to the document while the page shows (and takes them off after). */
export function useBrandLook(branding: Branding | undefined): void {
  useEffect(() => {
    if (!branding) return undefined;
    const root = document.documentElement;
    const properties = brandProperties(branding);
    for (const [name, value] of Object.entries(properties)) {
      if (value) root.style.setProperty(name, value);
      else root.style.removeProperty(name);
    }
    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    const builtInIcon = icon?.getAttribute('href') ?? null;
    const builtInType = icon?.getAttribute('type') ?? null;
    if (icon && branding.faviconURL) {
      icon.removeAttribute('type');
      icon.setAttribute('href', branding.faviconURL);
    }
    return () => {
      for (const name of Object.keys(properties)) root.style.removeProperty(name);
      if (icon && builtInIcon !== null) icon.setAttribute('href', builtInIcon);
      if (icon && builtInType !== null) icon.setAttribute('type', builtInType);
    };
  }, [branding]);
}

/** The sign-in options of the signed-in user's sector (the account page): its branding and default language. */
export function useSectorOptions(sectorID: string | undefined): SignInOptions | undefined {
  const queryClient = useQueryClient();
  return useQuery({ ...sectorSignInOptions(queryClient, sectorID ?? ''), enabled: sectorID !== undefined }).data;
}

/** The sector's logo (or nothing: the header then shows its name alone). */
export function BrandLogo({ branding }: { branding: Branding | undefined }) {
  if (!branding?.logoURL) return null;
  return <img className="brand-logo" src={branding.logoURL} alt={branding.displayName} height={32} />;
}

/** The sector's terms, privacy and support links, when it has any. */
export function BrandFooter({ branding }: { branding: Branding | undefined }) {
  const { t } = useTranslation('common');
  if (!branding || (!branding.termsURL && !branding.privacyURL && !branding.supportEmail)) return null;
  return (
    <footer className="brand-footer">
      <ul className="links">
        {branding.termsURL ? <li><a href={branding.termsURL} rel="noopener noreferrer">{t('brand.terms')}</a></li> : null}
        {branding.privacyURL ? <li><a href={branding.privacyURL} rel="noopener noreferrer">{t('brand.privacy')}</a></li> : null}
        {branding.supportEmail ? <li>{t('brand.help')} <a href={`mailto:${branding.supportEmail}`}>{branding.supportEmail}</a></li> : null}
      </ul>
    </footer>
  );
}
