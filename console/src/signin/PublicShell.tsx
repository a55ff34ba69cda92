import type { ReactNode } from 'react';
import { Page } from '../ui';
import { BrandFooter, BrandLogo, useBrandLook } from './brandLook';
import { useSignInContext } from './flow';

/** The frame of the public pages (sign-in, signup, links): a banner naming the sector and one narrow card. `focusTitle`: see Page. */
export function PublicShell({ title, area = 'account', focusTitle, children }: { title: string; area?: 'console' | 'account'; focusTitle?: boolean; children: ReactNode }) {
  // The sector the page acts on, always in view (a user with accounts in several sectors sees which one this is).
  const { sectorName, branding } = useSignInContext();
  useBrandLook(branding);
  return (
    <div className="public">
      <header className="app-header">
        <BrandLogo branding={branding} />
        <span className="brand">{area === 'console' ? 'Identity console' : 'Your account'}</span>
        {sectorName ? <span className="app-header__sector">{sectorName}</span> : null}
      </header>
      <Page title={title} focusTitle={focusTitle}>
        <div className="card narrow stack">{children}</div>
        <BrandFooter branding={branding} />
      </Page>
    </div>
  );
}
