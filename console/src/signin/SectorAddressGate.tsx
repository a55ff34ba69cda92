import type { ReactNode } from 'react';
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
  const options = useSignInOptions('');
  if (options.data) return <>{children}</>;
  if (options.error instanceof ApiError && (options.error.status === 404 || options.error.status === 400)) {
    return (
      <PublicShell title="There is no sign-in page here">
        <p>
          Nothing answers to <code>{loadedAddress?.basename}</code>: the organization or one of its sectors may have been renamed, or the
          address was cut short. Open the link from your mail again, or ask your administrator for your sign-in address.
        </p>
      </PublicShell>
    );
  }
  if (options.error) {
    return (
      <PublicShell title="This page could not be loaded">
        <ErrorMessage error={options.error} />
        <Button onClick={() => void options.refetch()} busy={options.isFetching}>Try again</Button>
      </PublicShell>
    );
  }
  return <main className="page"><Loading /></main>;
}
