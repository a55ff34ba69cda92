import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { i18n } from '../i18n';
import { Button, ConfirmDialog, EmptyState, ErrorMessage, Loading, Section, useConfirmedRemoval, useToast } from '../ui';
import { accountApi, when, type Session } from './accountApi';

/** A short description of a browser from its User-Agent (display only). */
function device(userAgent: string): string {
  if (!userAgent) return i18n.t('account:sessions.unknownDevice');
  const browser = /Edg\//.test(userAgent) ? 'Edge' : /Firefox\//.test(userAgent) ? 'Firefox' : /Chrom(e|ium)\//.test(userAgent) ? 'Chrome' : /Safari\//.test(userAgent) ? 'Safari' : '';
  const os = /Windows/.test(userAgent) ? 'Windows' : /Android/.test(userAgent) ? 'Android' : /iPhone|iPad/.test(userAgent) ? 'iOS' : /Mac OS X/.test(userAgent) ? 'macOS' : /Linux/.test(userAgent) ? 'Linux' : '';
  if (browser && os) return i18n.t('account:sessions.on', { browser, os });
  return browser || os || userAgent.slice(0, 60);
}

/** Where the user is signed in: revoke one session, or every other one. */
export function SessionsSection({ sub }: { sub: string }) {
  const { t } = useTranslation('account');
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
      toast(t('sessions.signedOut', { count }));
      void refresh();
    },
  );

  return (
    <Section
      title={t('parts.sessions')}
      id="sessions"
      actions={others.length > 0 ? <Button onClick={() => revoking.ask('others')}>{t('sessions.signOutOthers')}</Button> : undefined}
    >
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.sessions.length === 0 ? (
        <EmptyState title={t('sessions.none')} />
      ) : (
        <ul className="item-list" aria-label={t('sessions.list')}>
          {list.data.sessions.map((s) => (
            <li key={s.id}>
              <div className="item-main">
                <p><strong>{device(s.userAgent)}</strong> {s.current ? <span className="badge badge-ok">{t('sessions.current')}</span> : null}</p>
                <p className="muted">{t('sessions.from', { ip: s.clientIP || t('sessions.unknownAddress'), created: when(s.createdAt), seen: when(s.lastSeenAt) })}</p>
              </div>
              {!s.current ? (
                <Button variant="danger" onClick={() => revoking.ask(s)} aria-label={t('sessions.signOutLabel', { device: device(s.userAgent), ip: s.clientIP })}>{t('sessions.signOut')}</Button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        title={revoking.item === 'others' ? t('sessions.othersTitle') : t('sessions.oneTitle')}
        confirmLabel={t('sessions.signOut')}
        danger
        {...revoking.dialog}
      >
        <p>{revoking.item === 'others' ? t('sessions.othersBody', { count: others.length }) : t('sessions.oneBody')}</p>
      </ConfirmDialog>
    </Section>
  );
}
