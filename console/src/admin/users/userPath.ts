import { sectorPath } from '../nav';

/** The console address of one user's page (under their sector's Users screen). */
export const userPath = (sectorID: string, sub: string): string => `${sectorPath(sectorID, 'users')}/${encodeURIComponent(sub)}`;
