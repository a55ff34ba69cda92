import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'react-router';
import { useAuth } from '../auth/AuthContext';
import { sectorSignInOptions } from '../auth/signInOptions';
import { sectorsApi } from './adminApi';
import type { Sector } from './types';

/** The sector the current screen administers: from the URL, else the admin's own. */
export function useSectorID(): string {
  const { pathname } = useLocation();
  const { me } = useAuth();
  const match = /\/console\/sectors\/([^/]+)\//.exec(pathname);
  return match ? decodeURIComponent(match[1]) : (me?.sectorID ?? '');
}

/**
 * The first 100 sectors of the tenant (for the sector switcher and names), read
 * only by default-sector admins, the only ones the API lets list sectors.
 */
export function useSectorChoices(enabled: boolean) {
  return useQuery({
    queryKey: ['sectors', 'choices'],
    queryFn: () => sectorsApi.list({ page: 1, pageSize: 100 }),
    enabled,
    staleTime: 60_000,
  });
}

/** The sector's record when the admin may list sectors and it is among the first 100; else undefined. */
export function useSectorRecord(sectorID: string): Sector | undefined {
  const { me } = useAuth();
  const choices = useSectorChoices(!!me?.isDefaultSectorAdmin);
  return choices.data?.sectors.find((s) => s.sectorID === sectorID);
}

/** The name of the sector a screen administers: from the sector list when the admin may read it, else the public sign-in options. */
export function useSectorName(sectorID: string): string {
  const record = useSectorRecord(sectorID);
  const queryClient = useQueryClient();
  const options = useQuery({ ...sectorSignInOptions(queryClient, sectorID), enabled: !record && sectorID !== '' });
  return record?.name ?? options.data?.sectorName ?? '';
}
