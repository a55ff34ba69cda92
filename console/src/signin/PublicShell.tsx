import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSectorLanguage } from '../i18n/language';
import { Page } from '../ui';
import { BrandFooter, BrandLogo, useBrandLook } from './brandLook';
import { useSignInContext } from './flow';
import { LanguageSwitcher } from './LanguageSwitcher';

/**
 * The frame of the public pages (sign-in, signup, links): a banner naming the sector, one narrow card, the
 * sector's links and the language switcher. The sector's default language counts when the browser's does not
 * match a catalogue. `focusTitle`: see Page.
 */
export function PublicShell({ title, area = 'account', focusTitle, children }: { title: string; area?: 'console' | 'account'; focusTitle?: boolean; children: ReactNode }) {
  const { t } = useTranslation('common');
  // The sector the page acts on, always in view (a user with accounts in several sectors sees which one this is).
  const { sectorName, branding, defaultLanguage } = useSignInContext();
  useBrandLook(branding);
  useSectorLanguage(defaultLanguage);
  return (
    <div className="public">
      <header className="app-header">
        <BrandLogo branding={branding} />
        <span className="brand">{area === 'console' ? t('shell.console') : t('shell.account')}</span>
        {sectorName ? <span className="app-header__sector">{sectorName}</span> : null}
      </header>
      <Page title={title} focusTitle={focusTitle}>
        <div className="card narrow stack">{children}</div>
        <BrandFooter branding={branding} />
        <LanguageSwitcher />
      </Page>
    </div>
  );
}
