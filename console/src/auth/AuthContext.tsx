import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { api, ApiError, clearSession, currentAccessToken, decodeClaims, onSessionChange, seg, setSession, type SessionTokens } from '../api/client';

/** Who is signed in, from the access token's claims and (for admins) what the API lets them read. */
export interface Me {
  sub: string;
  username: string;
  sectorID: string;
  tenantID: string;
  isAdmin: boolean;
  /** An admin of the platform tenant's default sector: provisions and reads tenants. */
  isPlatformAdmin: boolean;
  /** An admin of the tenant's default sector: administers every sector of the tenant. */
  isDefaultSectorAdmin: boolean;
}

export type Area = 'console' | 'account';

interface AuthState {
  me: Me | null;
  /** Stores the tokens of a completed sign-in and works out the roles. */
  signIn(tokens: SessionTokens): Promise<Me>;
  /** Ends the session at the service (best effort) and forgets the tokens. */
  signOut(): Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);

/**
 * The sector of the last sign-in in this tab (sessionStorage: an id, never a
 * token), so that a reload, which forgets the tokens, returns to the right sign-in page.
 */
const SECTOR_KEY = 'iam.console.sector';

function rememberSector(sectorID: string): void {
  try {
    sessionStorage.setItem(SECTOR_KEY, sectorID);
  } catch {
    // Storage may be disabled; the sign-in page then asks for the default sector.
  }
}

function rememberedSector(): string | null {
  try {
    return sessionStorage.getItem(SECTOR_KEY);
  } catch {
    return null;
  }
}

function claimsToMe(token: string): Me {
  const claims = decodeClaims(token);
  return {
    sub: String(claims.sub ?? ''),
    username: String(claims.username ?? ''),
    sectorID: String(claims.sectorID ?? ''),
    tenantID: String(claims.tenantID ?? ''),
    isAdmin: claims.isAdmin === true,
    isPlatformAdmin: false,
    isDefaultSectorAdmin: false,
  };
}

/**
 * The roles the console needs, asked of the API itself: only a default-sector admin
 * may list the tenant's sectors, only a platform admin may read the platform tenant.
 * The API still decides every request; this only chooses what to show.
 */
async function probeRoles(me: Me): Promise<Me> {
  if (!me.isAdmin) return me;
  try {
    await api.get('/api/v1/sectors', { pageSize: 1 });
  } catch (error) {
    if (error instanceof ApiError && (error.status === 403 || error.status === 401)) return me;
    throw error;
  }
  const result = { ...me, isDefaultSectorAdmin: true };
  try {
    const tenant = await api.get<{ tenant?: { isPlatform?: boolean } }>(`/api/v1/tenants/${seg(me.tenantID)}`);
    result.isPlatformAdmin = tenant.tenant?.isPlatform === true;
  } catch {
    result.isPlatformAdmin = false;
  }
  return result;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);

  // A session the client forgot (sign-out, a refused refresh) signs the page out.
  useEffect(() => onSessionChange((token) => {
    if (token === null) setMe(null);
  }), []);

  const signIn = useCallback(async (tokens: SessionTokens) => {
    setSession(tokens);
    const next = await probeRoles(claimsToMe(tokens.token));
    if (next.sectorID) rememberSector(next.sectorID);
    setMe(next);
    return next;
  }, []);

  const signOut = useCallback(async () => {
    if (currentAccessToken()) {
      try {
        await api.post('/api/v1/logout');
      } catch {
        // The session may already have ended; forgetting the tokens is what matters here.
      }
    }
    clearSession();
    setMe(null);
  }, []);

  const value = useMemo(() => ({ me, signIn, signOut }), [me, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth() outside <AuthProvider>');
  return state;
}

/** The sign-in page of an area, keeping the sector and the page to come back to. */
export function signInPath(area: Area, options: { sector?: string | null; next?: string } = {}): string {
  const query = new URLSearchParams();
  if (options.sector) query.set('sector', options.sector);
  if (options.next) query.set('next', options.next);
  const text = query.toString();
  return `/${area}/sign-in${text ? `?${text}` : ''}`;
}

/** Renders its children for a signed-in user; otherwise sends the browser to the area's sign-in page. */
export function RequireAuth({ area, children }: { area: Area; children: ReactNode }) {
  const { me } = useAuth();
  const location = useLocation();
  if (!me) {
    const sector = new URLSearchParams(location.search).get('sector') ?? rememberedSector();
    return <Navigate to={signInPath(area, { sector, next: location.pathname + location.search })} replace />;
  }
  return <>{children}</>;
}
