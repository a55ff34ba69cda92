import type { ReactNode } from 'react';
import { Page } from '../ui';

/** The frame of the public pages (sign-in, signup, links): a banner and one narrow card. */
export function PublicShell({ title, area = 'account', children }: { title: string; area?: 'console' | 'account'; children: ReactNode }) {
  return (
    <div className="public">
      <header className="app-header">
        <span className="brand">{area === 'console' ? 'Identity console' : 'Your account'}</span>
      </header>
      <Page title={title}>
        <div className="card narrow stack">{children}</div>
      </Page>
    </div>
  );
}
