import { useQuery } from '@tanstack/react-query';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { i18n } from '../../i18n';
import { Button, ErrorMessage, Loading, Page, Section } from '../../ui';
import { usersApi } from '../adminApi';
import { sectorPath } from '../nav';
import { useSectorID } from '../sectorContext';
import type { UserListItem, UserProfile } from '../types';
import { formatTime } from '../util';
import { AccountStatus } from './AccountStatus';
import { UserProfileEditor } from './EditUserForm';
import { UserActions } from './UserActions';
import { UserFactors } from './UserFactors';
import { UserIdentities } from './UserIdentities';
import { UserRoles } from './UserRoles';
import { UserGrants, UserSessions } from './UserSessions';

/**
 * One user of a sector (/console/sectors/:sectorID/users/:sub), everything an admin may
 * see and do about them through the admin API: the profile (edited in place), account
 * status and roles; the sign-in factors; linked social accounts; sessions; the apps
 * with access; and the actions (password reset, verification mail, invitation, delete).
 * Each section loads and fails on its own. GET /users/{sub} says neither whether the user
 * is an admin nor their invitation state; the sector's list, filtered by the exact
 * email, does.
 */
export default function UserPage() {
  const { t } = useTranslation('users');
  const { sub = '' } = useParams();
  const sectorID = useSectorID();
  const user = useQuery({ queryKey: ['user', sub], queryFn: () => usersApi.read(sub), enabled: !!sub });
  const email = user.data?.email ?? '';
  const listed = useQuery({
    queryKey: ['users', sectorID, 'by-email', email],
    queryFn: () => usersApi.list(sectorID, { page: 1, pageSize: 10, filterEmail: email }),
    enabled: !!sectorID && !!email,
  });
  const item = listed.data?.users.find((u) => u.sub === sub);
  const who = user.data ? user.data.email || user.data.name || user.data.sub : '';
  const title = user.data ? user.data.name || user.data.email || t('page.user') : t('page.user');

  return (
    <Page title={title} wide>
      <p className="page-lead">
        <Link to={sectorPath(sectorID, 'users')}>
          <span aria-hidden="true">← </span>{t('page.all')}
        </Link>
      </p>
      {user.isPending ? <Loading label={t('edit.loading')} /> : null}
      <ErrorMessage error={user.error} title={t('edit.loadFailed')} />
      {user.data ? (
        <>
          <ProfileSection user={user.data} listed={item} listPending={listed.isPending} listError={listed.error} />
          <UserFactors sub={sub} who={who} />
          <UserIdentities sub={sub} who={who} />
          <UserSessions sub={sub} who={who} />
          <UserGrants sub={sub} who={who} />
          <UserActions user={user.data} listed={item} sectorID={sectorID} who={who} />
        </>
      ) : null}
    </Page>
  );
}

const inviteWords = (status: Exclude<UserListItem['inviteStatus'], ''>) => i18n.t(`users:page.invite.${status}`);

/** The profile read-only, with "Edit profile" opening the editor in place; account status and roles below. */
function ProfileSection({ user, listed, listPending, listError }: { user: UserProfile; listed: UserListItem | undefined; listPending: boolean; listError: unknown }) {
  const { t } = useTranslation('users');
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  // Opening the editor moves focus to its first field, once per opening (not when the user is re-read).
  const focusPending = useRef(false);
  const [takeFocus] = useState(() => () => {
    const pending = focusPending.current;
    focusPending.current = false;
    return pending;
  });
  const open = () => {
    focusPending.current = true;
    setEditing(true);
  };
  const close = () => {
    setEditing(false);
    editButton.current?.focus();
  };
  const fact = (label: string, value: ReactNode) => ({ label, value });
  const text = (value: string) => <span className="wrap-anywhere">{value}</span>;
  const facts = [
    fact(
      t('list.email'),
      user.email ? (
        <>
          {text(user.email)} {user.emailVerified ? <span className="badge badge-ok">{t('page.verified')}</span> : <span className="badge">{t('page.unverified')}</span>}
        </>
      ) : (
        <span className="muted">{t('page.none')}</span>
      ),
    ),
    user.pendingEmail ? fact(t('page.pendingEmail'), text(user.pendingEmail)) : null,
    fact(t('list.name'), user.name ? text(user.name) : <span className="muted">{t('list.noName')}</span>),
    user.preferredUsername ? fact(t('account:profile.fields.preferredUsername'), text(user.preferredUsername)) : null,
    user.phoneNumber ? fact(t('page.phone'), text(user.phoneNumber)) : null,
    fact(
      t('list.status'),
      <span className="row-actions">
        {user.disabled ? <span className="badge badge-warn">{t('badge.disabled')}</span> : <span className="badge badge-ok">{t('list.enabled')}</span>}
        {listed?.isAdmin ? <span className="badge">{t('badge.admin')}</span> : null}
        {listed?.inviteStatus ? <span className="badge">{inviteWords(listed.inviteStatus)}</span> : null}
      </span>,
    ),
    fact(t('list.created'), formatTime(user.createdAt)),
    fact(t('list.updated'), formatTime(user.updatedAt)),
    fact(t('page.subject'), <code>{user.sub}</code>),
  ].filter((f) => f !== null);
  return (
    <Section
      title={t('page.profile')}
      id="user-profile"
      actions={
        <Button ref={editButton} onClick={() => (editing ? close() : open())} aria-expanded={editing} disabled={!listed && !editing}>
          {t('page.editProfile')}
        </Button>
      }
    >
      <ErrorMessage error={listError} title={t('page.listFailed')} />
      {!listed && listPending ? <Loading label={t('page.statusLoading')} /> : null}
      {editing && listed ? (
        <UserProfileEditor key={`${user.sub}:${user.updatedAt}`} user={user} isAdmin={listed.isAdmin} onDone={close} labelledBy="user-profile-heading" takeFocus={takeFocus} />
      ) : (
        <dl className="user-facts">
          {facts.map((f) => (
            <div key={f.label}>
              <dt>{f.label}</dt>
              <dd>{f.value}</dd>
            </div>
          ))}
        </dl>
      )}
      <AccountStatus user={user} />
      <UserRoles user={user} />
    </Section>
  );
}
