import type { QueryClient } from '@tanstack/react-query';

/**
 * After a change to users, the lists of a sector (or of every sector) are out of date.
 * The list on screen refetches; lists cached under other filters are dropped rather than
 * marked stale, so switching filters never shows, even for a moment, a user as they were
 * before the change.
 */
export function refreshUserLists(queryClient: QueryClient, sectorID?: string): void {
  const queryKey = sectorID ? ['users', sectorID] : ['users'];
  queryClient.removeQueries({ queryKey, type: 'inactive' });
  void queryClient.invalidateQueries({ queryKey });
}
