import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, ConfirmDialog, EmptyState, ErrorMessage, Loading, Section, useConfirmedRemoval, useToast } from '../ui';
import { accountApi, when, type Session } from './accountApi';

/** A short description of a browser from its User-Agent (display only). */
function device(userAgent: string): string {
  if (!userAgent) return 'Unknown device';
  const browser = /Edg\//.test(userAgent) ? 'Edge' : /Firefox\//.test(userAgent) ? 'Firefox' : /Chrom(e|ium)\//.test(userAgent) ? 'Chrome' : /Safari\//.test(userAgent) ? 'Safari' : '';
  const os = /Windows/.test(userAgent) ? 'Windows' : /Android/.test(userAgent) ? 'Android' : /iPhone|iPad/.test(userAgent) ? 'iOS' : /Mac OS X/.test(userAgent) ? 'macOS' : /Linux/.test(userAgent) ? 'Linux' : '';
  return [browser, os].filter(Boolean).join(' on ') || userAgent.slice(0, 60);
}

/** Where the user is signed in: revoke one session, or every other one. */
export function SessionsSection({ sub }: { sub: string }) {
  const toast = useToast();
  const client = useQueryClient();
  const key = ['account', sub, 'sessions'];
  const list = useQuery({ queryKey: key, queryFn: () => accountApi.sessions(sub) });
  const refresh = () => client.invalidateQueries({ queryKey: key });
  const others = (list.data?.sessions ?? []).filter((s) => !s.current);

  const revoking = useConfirmedRemoval(
    async (target: Session | 'others') => {
      const ids = target === 'others' ? others.map((s) => s.id) : [target.id];
      for (const id of ids) await accountApi.revokeSession(sub, id);
      return ids.length;
    },
    (count) => {
      toast(count === 1 ? 'Session signed out.' : `${count} sessions signed out.`);
      void refresh();
    },
  );

  return (
    <Section
      title="Sessions"
      id="sessions"
      actions={others.length > 0 ? <Button onClick={() => revoking.ask('others')}>Sign out all other sessions</Button> : undefined}
    >
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.sessions.length === 0 ? (
        <EmptyState title="No active sessions" />
      ) : (
        <ul className="item-list" aria-label="Your sessions">
          {list.data.sessions.map((s) => (
            <li key={s.id}>
              <div className="item-main">
                <p><strong>{device(s.userAgent)}</strong> {s.current ? <span className="badge badge-ok">This session</span> : null}</p>
                <p className="muted">From {s.clientIP || 'an unknown address'} · signed in {when(s.createdAt)} · last active {when(s.lastSeenAt)}</p>
              </div>
              {!s.current ? (
                <Button variant="danger" onClick={() => revoking.ask(s)} aria-label={`Sign out the session of ${device(s.userAgent)} from ${s.clientIP}`}>Sign out</Button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        title={revoking.item === 'others' ? 'Sign out all other sessions?' : 'Sign out this session?'}
        confirmLabel="Sign out"
        danger
        {...revoking.dialog}
      >
        <p>{revoking.item === 'others' ? `${others.length} other session(s) will be signed out at once.` : 'That device will be signed out at once.'}</p>
      </ConfirmDialog>
    </Section>
  );
}
