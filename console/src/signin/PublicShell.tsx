import type { ReactNode } from 'react';
import { Page } from '../ui';

/** The frame of the public pages (sign-in, signup, links): a banner and one narrow card. `focusTitle`: see Page. */
export function PublicShell({ title, area = 'account', focusTitle, children }: { title: string; area?: 'console' | 'account'; focusTitle?: boolean; children: ReactNode }) {
  return (
    <div className="public">
      <header className="app-header">
        <span className="brand">{area === 'console' ? 'Identity console' : 'Your account'}</span>
      </header>
      <Page title={title} focusTitle={focusTitle}>
        <div className="card narrow stack">{children}</div>
      </Page>
    </div>
  );
}
