/**
 * A sector's public sign-in options (GET /api/v1/sign-in-options): its id and name,
 * whether it is its tenant's default sector, what its sign-in page offers. Asked by
 * the address's slugs under `/t/`, else by the sector's id. Every reader on a page —
 * the `/t/` gate, the sign-in pages, the session restore, the roles check — goes
 * through the query cache entry built here, so a page load asks once per sector.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Schemas } from '../api/types';
import { loadedAddress } from './sectorAddress';

export type SignInOptions = Schemas['SignInOptionsResponse'];

/** Which sector: by the tenant's and sector's slugs, by id, or neither (the platform tenant's default sector). */
type SectorRef = { tenant: string; sector: string } | { sectorID: string } | undefined;

/** The page's own sector: the one its `/t/` address names, else the one with this id ('': the platform's default). */
function pageSector(sectorID: string): SectorRef {
  if (loadedAddress) return { tenant: loadedAddress.tenant, sector: loadedAddress.sector ?? '' };
  return sectorID ? { sectorID } : undefined;
}

const keyOf = (ref: SectorRef) => ['sign-in-options', ref] as const;

function optionsQuery(ref: SectorRef, initial?: { data: SignInOptions; updatedAt: number }) {
  return queryOptions({
    queryKey: keyOf(ref),
    queryFn: () => api.getPublic<SignInOptions>('/api/v1/sign-in-options', ref),
    staleTime: 60_000,
    retry: false,
    initialData: initial?.data,
    initialDataUpdatedAt: initial?.updatedAt,
  });
}

/** The sign-in options of the page's sector: by its address under `/t/`, else by id ('': the platform's default sector). */
export function pageSignInOptions(sectorID: string) {
  return optionsQuery(pageSector(sectorID));
}

/**
 * The sign-in options of the sector with this id ('': the platform's default sector).
 * When the page's own sector is that sector, its answer is already at hand (under
 * `/t/` it was asked by address): the entry starts from it instead of asking again.
 */
export function sectorSignInOptions(queryClient: QueryClient, sectorID: string) {
  const ref: SectorRef = sectorID ? { sectorID } : undefined;
  const page = queryClient.getQueryState<SignInOptions>(keyOf(pageSector('')));
  const known = sectorID && page?.data?.sectorID === sectorID ? { data: page.data, updatedAt: page.dataUpdatedAt } : undefined;
  return optionsQuery(ref, known);
}
