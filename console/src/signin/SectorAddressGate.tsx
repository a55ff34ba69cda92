import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';
import { loadedAddress } from '../auth/sectorAddress';
import { Button, ErrorMessage, Loading } from '../ui';
import { useSignInOptions } from './flow';
import { PublicShell } from './PublicShell';

/**
 * Under `/t/{tenant}/[{sector}/]` the pages act on the sector the address names:
 * they wait until its id is known, and an address that names no sector says so
 * instead of signing in elsewhere. Elsewhere it renders its children at once.
 */
export function SectorAddressGate({ children }: { children: ReactNode }) {
  if (!loadedAddress) return <>{children}</>;
  return <AddressedSector>{children}</AddressedSector>;
}

function AddressedSector({ children }: { children: ReactNode }) {
  const { t } = useTranslation(['signin', 'common']);
  const options = useSignInOptions('');
  if (options.data) return <>{children}</>;
  if (options.error instanceof ApiError && (options.error.status === 404 || options.error.status === 400)) {
    return (
      <PublicShell title={t('gate.noPageTitle')}>
        <p>
          <Trans t={t} i18nKey="gate.noPage" values={{ address: loadedAddress?.basename }} components={{ code: <code /> }} />
        </p>
      </PublicShell>
    );
  }
  if (options.error) {
    return (
      <PublicShell title={t('gate.failedTitle')}>
        <ErrorMessage error={options.error} />
        <Button onClick={() => void options.refetch()} busy={options.isFetching}>{t('common:tryAgain')}</Button>
      </PublicShell>
    );
  }
  return <main className="page"><Loading /></main>;
}
