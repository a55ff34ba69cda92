import { createContext, useCallback, useContext, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { Navigate, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import {
  api,
  clearSession,
  currentAccessToken,
  decodeClaims,
  endBrowserSession,
  onSessionChange,
  onSessionEnded,
  restoreSession,
  seg,
  setSession,
  type SessionTokens,
} from '../api/client';
import { Button, Loading, useModalDialog } from '../ui';
import { absolutePath, loadedAddress } from './sectorAddress';
import { pageSignInOptions, sectorSignInOptions } from './signInOptions';

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
  /** A session is being restored from the browser-session cookie (a reload): not known yet whether anyone is signed in. */
  restoring: boolean;
  /** Stores the tokens of a completed sign-in and works out the roles. */
  signIn(tokens: SessionTokens): Promise<Me>;
  /** Ends the session at the service (best effort) and forgets the tokens. */
  signOut(): Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);

/** Tells this origin's other tabs of sign-ins and sign-outs (a sign-in there can restore an ended session here). */
const SESSION_CHANNEL = 'iam-session';

interface SessionMessage {
  type: 'signed-in' | 'signed-out';
  sectorID: string;
  /** The page that sent it: a page hears its own messages on its other channel objects, and ignores them. */
  from: string;
}

/** This page's id in its messages (not a secret; getRandomValues works outside secure contexts too). */
const PAGE_ID = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');

function openChannel(): BroadcastChannel | null {
  return typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(SESSION_CHANNEL);
}

function broadcast(message: Omit<SessionMessage, 'from'>): void {
  const channel = openChannel();
  channel?.postMessage({ ...message, from: PAGE_ID });
  channel?.close();
}

/**
 * The sector a page load can restore a session of: under `/t/…` the one the address
 * names (known once its sign-in options answer), else the address's `?sector=`, else
 * the one remembered in this tab.
 */
function sectorToRestore(): string | null {
  if (loadedAddress) return 'addressed';
  return new URLSearchParams(window.location.search).get('sector') || rememberedSector();
}

/**
 * The id of the sector to restore (`sectorToRestore`), looking up an addressed one in the
 * same query cache entry the `/t/` gate reads: one request answers both.
 */
async function sectorIDToRestore(queryClient: QueryClient): Promise<string | null> {
  if (!loadedAddress) return sectorToRestore();
  const options = await queryClient.fetchQuery(pageSignInOptions(''));
  return options.sectorID;
}

/** The area of the current page, for its sign-in page. */
function currentArea(): Area {
  return /\/account(\/|$)/.test(window.location.pathname) ? 'account' : 'console';
}

/**
 * The sector of the last sign-in in this tab (sessionStorage: an id, never a
 * token), so that a reload restores that sector's session from its cookie, or
 * returns to the right sign-in page.
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
 * The roles the console needs: an admin of the tenant's default sector administers
 * every sector; only a platform admin may read the platform tenant.
 * The API still decides every request; this only chooses what to show.
 */
async function probeRoles(queryClient: QueryClient, me: Me): Promise<Me> {
  if (!me.isAdmin) return me;
  // Whether the admin's sector is its tenant's default one, from the public sign-in options (the page's
  // own answer when it is that sector): asking the sector list instead would log a refused request for
  // every other sector's admin.
  const options = await queryClient.fetchQuery(sectorSignInOptions(queryClient, me.sectorID));
  if (options.isDefaultSector !== true) return me;
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
  const queryClient = useQueryClient();
  const [me, setMe] = useState<Me | null>(null);
  const [restoring, setRestoring] = useState(() => sectorToRestore() !== null);
  const [ended, setEnded] = useState(false);
  /** No user shown yet, or their session ended: the next access token (a restore) works out who is signed in. */
  const stale = useRef(true);
  /** The user a restored access token names, while their roles are asked for. */
  const arriving = useRef<Promise<void>>(Promise.resolve());

  // A session the client forgot (sign-out) signs the page out; an access token restored from the cookie (`restoreSession`:
  // this page's load, a sign-in in another tab, any other caller) signs the page in again and closes the ended-session dialog.
  useEffect(() => onSessionChange((token) => {
    if (token === null) {
      stale.current = true;
      setMe(null);
      return;
    }
    if (!stale.current) return;
    stale.current = false;
    arriving.current = probeRoles(queryClient, claimsToMe(token)).then(
      (next) => {
        if (next.sectorID) rememberSector(next.sectorID);
        setMe(next);
        setEnded(false);
      },
      () => {
        stale.current = true;
      },
    );
  }), [queryClient]);

  // A session the service ended under the page (revoked, a refresh refused): the screen stays, a dialog offers a new sign-in.
  useEffect(() => onSessionEnded(() => {
    stale.current = true;
    setEnded(true);
  }), []);

  // A page load: the session comes back from the sector's cookie, if there is one.
  useEffect(() => {
    if (!sectorToRestore()) return;
    let active = true;
    sectorIDToRestore(queryClient)
      .then((sector) => (sector ? restoreSession(sector) : false))
      .then(() => arriving.current)
      .catch(() => undefined)
      .finally(() => {
        if (active) setRestoring(false);
      });
    return () => {
      active = false;
    };
  }, [queryClient]);

  // Other tabs: a sign-in there restores an ended (or absent) session of its sector here; a sign-out there signs this tab out.
  useEffect(() => {
    const channel = openChannel();
    if (!channel) return;
    channel.onmessage = (event: MessageEvent<SessionMessage>) => {
      const message = event.data;
      // Its own sign-in would make this page refresh at once, and a reload during that refresh loses the
      // rotated cookie, which the service then sees reused (and ends the session).
      if (message.from === PAGE_ID) return;
      const mine = rememberedSector();
      if (message.type === 'signed-in' && (!currentAccessToken() || mine === message.sectorID)) {
        void restoreSession(message.sectorID).catch(() => null);
      } else if (message.type === 'signed-out' && mine === message.sectorID) {
        clearSession();
        setEnded(false);
      }
    };
    return () => channel.close();
  }, []);

  const signIn = useCallback(async (tokens: SessionTokens) => {
    // This sign-in works out the user itself.
    stale.current = false;
    await setSession(tokens);
    const next = await probeRoles(queryClient, claimsToMe(tokens.token));
    if (next.sectorID) {
      rememberSector(next.sectorID);
      broadcast({ type: 'signed-in', sectorID: next.sectorID });
    }
    setEnded(false);
    setMe(next);
    return next;
  }, [queryClient]);

  const signOut = useCallback(async () => {
    const sector = me?.sectorID || rememberedSector();
    if (currentAccessToken()) {
      try {
        await api.post('/api/v1/logout');
      } catch {
        // The session may already have ended; forgetting the tokens is what matters here.
      }
    }
    if (sector) {
      await endBrowserSession(sector);
      broadcast({ type: 'signed-out', sectorID: sector });
    }
    clearSession();
    setEnded(false);
    setMe(null);
  }, [me]);

  const value = useMemo(() => ({ me, restoring, signIn, signOut }), [me, restoring, signIn, signOut]);
  return (
    <AuthContext.Provider value={value}>
      {children}
      <SessionEndedDialog open={ended && me !== null} sectorID={me?.sectorID ?? ''} onSignOut={() => void signOut()} />
    </AuthContext.Provider>
  );
}

/**
 * The session ended while the user worked (revoked, or its refresh refused): a
 * modal over the untouched screen. Signing in again happens in a new tab, so this
 * one keeps what was typed; that tab's sign-in restores the session here and the
 * dialog closes. Escape does nothing: the choice is the user's.
 */
function SessionEndedDialog({ open, sectorID, onSignOut }: { open: boolean; sectorID: string; onSignOut(): void }) {
  const { t } = useTranslation('common');
  const signInRef = useRef<HTMLButtonElement>(null);
  const ref = useModalDialog(open, signInRef);
  const titleId = useId();
  const bodyId = useId();

  const signInAgain = () => {
    window.open(absolutePath(signInPath(currentArea(), { sector: sectorID || null })), '_blank');
  };

  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} aria-describedby={bodyId} onCancel={(event) => event.preventDefault()}>
      {open ? (
        <>
          <h2 id={titleId}>{t('session.endedTitle')}</h2>
          <div id={bodyId} className="dialog-body">
            <p>{t('session.endedBody')}</p>
          </div>
          <div className="dialog-actions">
            <Button onClick={onSignOut}>{t('session.signOut')}</Button>
            <Button ref={signInRef} variant="primary" onClick={signInAgain}>{t('session.signInAgain')}</Button>
          </div>
        </>
      ) : null}
    </dialog>
  );
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
  const { me, restoring } = useAuth();
  const location = useLocation();
  const { t } = useTranslation('common');
  if (!me && restoring) return <Loading label={t('session.restoring')} />;
  if (!me) {
    // Under `/t/…` the address is the sector; elsewhere the query's or this tab's last one.
    const sector = loadedAddress ? null : new URLSearchParams(location.search).get('sector') ?? rememberedSector();
    return <Navigate to={signInPath(area, { sector, next: location.pathname + location.search })} replace />;
  }
  return <>{children}</>;
}
