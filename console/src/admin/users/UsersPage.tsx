import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { i18n } from '../../i18n';
import { Button, ConfirmDialog, DataTable, errorText, Field, Page, Select, TextInput, useConfirmedRemoval, useToast, type ColumnDef, type SortingState } from '../../ui';
import { rolesApi, usersApi, type UserQuery, type UserSort } from '../adminApi';
import { useSectorID } from '../sectorContext';
import { SectorLead } from '../SectorLead';
import type { UserListItem } from '../types';
import { formatTime, useDebounced } from '../util';
import { CreateUserForm } from './CreateUserForm';
import { EditUserForm } from './EditUserForm';
import { userPath } from './userPath';
import { refreshUserLists } from './userLists';

/**
 * The sector's users: search (debounced), filters, sort and paging, all done by the
 * service (GET /sectors/{id}/users): the page holds one page of rows at a time,
 * so it stays fast whatever the sector's size. Create, invite and resend, edit,
 * disable or enable, delete with confirmation. Disabled users carry a "Disabled" badge.
 * Each email links to the user's own page (factors, sessions, linked accounts, actions).
 * Opening the new-user form or the editor moves focus into it; closing it returns
 * focus to the button that opened it.
 * The Role filter lives in the address (`?role=<name>`), so the Roles page links to a role's holders.
 */

const SORTS: Record<string, UserSort> = { name: 'name', email: 'email', createdAt: 'created_at', updatedAt: 'updated_at' };

function inviteBadge(status: UserListItem['inviteStatus']) {
  if (status === '') return null;
  const cls = status === 'active' ? 'badge badge-ok' : status === 'expired' ? 'badge badge-warn' : 'badge';
  const label = i18n.t(`users:invite.${status}`);
  return <span className={cls}>{label}</span>;
}

export default function UsersPage() {
  const { t } = useTranslation('users');
  const sectorID = useSectorID();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [email, setEmail] = useState('');
  const [verified, setVerified] = useState<'' | 'true' | 'false'>('');
  const [disabled, setDisabled] = useState<'' | 'true' | 'false'>('');
  const [params, setParams] = useSearchParams();
  const role = params.get('role') ?? '';
  const [pageSize, setPageSize] = useState(20);
  const [page, setPage] = useState(1);
  const [sorting, setSorting] = useState<SortingState>([{ id: 'createdAt', desc: true }]);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<UserListItem | null>(null);
  const newUserButton = useRef<HTMLButtonElement>(null);
  const editOpener = useRef<HTMLElement | null>(null);
  const openEditor = (u: UserListItem, opener: HTMLElement) => {
    editOpener.current = opener;
    setEditing(u);
  };
  const closeEditor = () => {
    const u = editing;
    setEditing(null);
    // The row's Edit button, or the same one re-rendered when the list was read again.
    const opener = editOpener.current?.isConnected ? editOpener.current : u ? document.querySelector<HTMLElement>(`[aria-label="${CSS.escape(t('list.editLabel', { email: u.email }))}"]`) : null;
    opener?.focus();
  };
  const closeCreate = () => {
    setCreating(false);
    newUserButton.current?.focus();
  };

  const searchTerm = useDebounced(search.trim());
  const filterEmail = useDebounced(email.trim());
  const q: UserQuery = {
    page,
    pageSize,
    searchTerm,
    filterEmail,
    filterVerified: verified || undefined,
    filterDisabled: disabled || undefined,
    filterRole: role || undefined,
    sortBy: SORTS[sorting[0]?.id ?? 'createdAt'],
    sortDesc: sorting[0]?.desc ?? false,
  };
  const users = useQuery({
    queryKey: ['users', sectorID, q],
    queryFn: () => usersApi.list(sectorID, q),
    placeholderData: keepPreviousData,
    enabled: !!sectorID,
  });
  const roles = useQuery({ queryKey: ['roles', sectorID], queryFn: () => rolesApi.list(sectorID), enabled: !!sectorID });
  const roleNames = roles.data?.roles.map((r) => r.name) ?? [];
  const setRole = (name: string) => {
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (name) next.set('role', name);
      else next.delete('role');
      return next;
    }, { replace: true });
    setPage(1);
  };
  const filtered = !!(searchTerm || filterEmail || verified || disabled || role);

  const resend = useMutation({
    mutationFn: (u: UserListItem) => usersApi.resendInvite(u.sub),
    onSuccess: (r, u) => {
      toast(t('list.resent', { email: u.email, expires: formatTime(r.inviteExpiresAt) }));
      refreshUserLists(queryClient, sectorID);
    },
    onError: (error, u) => toast(t('list.resendFailed', { email: u.email, message: errorText(error) }), 'error'),
  });
  const deleting = useConfirmedRemoval(
    (u: UserListItem) => usersApi.remove(u.sub),
    (_r, u) => {
      toast(t('list.deleted', { email: u.email }));
      if (editing?.sub === u.sub) setEditing(null);
      refreshUserLists(queryClient, sectorID);
    },
  );
  const askDelete = deleting.ask;
  // Stable between renders (TanStack Query's mutate), so the memoised columns keep their cells, and focus stays on a row's button.
  const resendTo = resend.mutate;
  const resendingSub = resend.isPending ? resend.variables?.sub : undefined;

  const columns = useMemo<Array<ColumnDef<UserListItem>>>(
    () => [
      {
        accessorKey: 'name',
        header: t('list.name'),
        enableSorting: true,
        cell: ({ row }) => (row.original.name ? <span className="wrap-anywhere">{row.original.name}</span> : <span className="muted">{t('list.noName')}</span>),
      },
      {
        accessorKey: 'email',
        header: t('list.email'),
        enableSorting: true,
        cell: ({ row }) => (
          <Link className="wrap-anywhere" to={userPath(sectorID, row.original.sub)}>
            {row.original.email || row.original.sub}
          </Link>
        ),
      },
      {
        id: 'status',
        header: t('list.status'),
        cell: ({ row }) => (
          <span className="row-actions">
            {row.original.disabled ? <span className="badge badge-warn">{t('badge.disabled')}</span> : null}
            {row.original.isAdmin ? <span className="badge">{t('badge.admin')}</span> : null}
            {row.original.emailVerified ? <span className="badge badge-ok">{t('badge.verified')}</span> : <span className="badge">{t('badge.unverified')}</span>}
            {inviteBadge(row.original.inviteStatus)}
          </span>
        ),
      },
      { accessorKey: 'createdAt', header: t('list.created'), enableSorting: true, cell: ({ row }) => formatTime(row.original.createdAt) },
      { accessorKey: 'updatedAt', header: t('list.updated'), enableSorting: true, cell: ({ row }) => formatTime(row.original.updatedAt) },
      {
        id: 'actions',
        header: t('list.actions'),
        cell: ({ row }) => {
          const u = row.original;
          return (
            <span className="row-actions">
              <Button onClick={(e) => openEditor(u, e.currentTarget)} aria-label={t('list.editLabel', { email: u.email })}>
                {t('list.edit')}
              </Button>
              {u.inviteStatus === 'pending' || u.inviteStatus === 'expired' ? (
                <Button onClick={() => resendTo(u)} busy={resendingSub === u.sub} aria-label={t('list.resendLabel', { email: u.email })}>
                  {t('list.resend')}
                </Button>
              ) : null}
              <Button variant="danger" onClick={() => askDelete(u)} aria-label={t('list.deleteLabel', { email: u.email })}>
                {t('list.delete')}
              </Button>
            </span>
          );
        },
      },
    ],
    [resendTo, resendingSub, askDelete, sectorID, t],
  );

  const resetPage = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setPage(1);
  };

  return (
    <Page
      title={t('list.title')}
      wide
      actions={
        <Button ref={newUserButton} variant="primary" onClick={() => setCreating(true)} aria-expanded={creating}>
          {t('list.new')}
        </Button>
      }
    >
      <SectorLead sectorID={sectorID} />
      {creating ? <CreateUserForm sectorID={sectorID} onDone={closeCreate} /> : null}
      {editing ? <EditUserForm key={editing.sub} sub={editing.sub} email={editing.email} isAdmin={editing.isAdmin} onDone={closeEditor} /> : null}
      <div className="toolbar" role="search" aria-label={t('list.title')}>
        <Field label={t('list.search')} hint={t('list.searchHint')}>
          {(p) => <TextInput {...p} type="search" value={search} onChange={(e) => resetPage(setSearch)(e.target.value)} />}
        </Field>
        <Field label={t('list.exactEmail')}>
          {(p) => <TextInput {...p} type="search" value={email} onChange={(e) => resetPage(setEmail)(e.target.value)} />}
        </Field>
        <Field label={t('list.verification')}>
          {(p) => (
            <Select
              {...p}
              value={verified}
              onChange={(e) => resetPage(setVerified)(e.target.value as '' | 'true' | 'false')}
              options={[
                { value: '', label: t('list.any') },
                { value: 'true', label: t('list.verified') },
                { value: 'false', label: t('list.notVerified') },
              ]}
            />
          )}
        </Field>
        <Field label={t('list.status')}>
          {(p) => (
            <Select
              {...p}
              value={disabled}
              onChange={(e) => resetPage(setDisabled)(e.target.value as '' | 'true' | 'false')}
              options={[
                { value: '', label: t('list.all') },
                { value: 'false', label: t('list.enabled') },
                { value: 'true', label: t('list.disabled') },
              ]}
            />
          )}
        </Field>
        <Field label={t('list.role')}>
          {(p) => (
            <Select {...p} value={role} onChange={(e) => setRole(e.target.value)}>
              <option value="">{t('list.any')}</option>
              {/* A role named in the address but not (or no longer) in the list stays selectable, so the filter never changes silently. */}
              {role && !roleNames.includes(role) ? <option value={role}>{role}</option> : null}
              {roleNames.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label={t('list.rowsPerPage')}>
          {(p) => (
            <Select
              {...p}
              value={String(pageSize)}
              onChange={(e) => resetPage(setPageSize)(Number(e.target.value))}
              options={[10, 20, 50, 100].map((n) => ({ value: String(n), label: String(n) }))}
            />
          )}
        </Field>
      </div>
      <DataTable
        caption={t('list.caption')}
        columns={columns}
        data={users.data?.users}
        loading={users.isFetching}
        error={users.error}
        emptyTitle={filtered ? t('list.noMatch') : t('list.none')}
        emptyBody={filtered ? undefined : <p>{t('list.noneBody')}</p>}
        getRowId={(u) => u.sub}
        page={users.data?.currentPage ?? page}
        pageCount={users.data?.totalPages}
        totalCount={users.data?.totalCount}
        onPageChange={setPage}
        sorting={sorting}
        onSortingChange={(s) => {
          setSorting(s);
          setPage(1);
        }}
      />
      <ConfirmDialog
        title={t('list.deleteTitle', { email: deleting.item?.email ?? t('list.thisUser') })}
        confirmLabel={t('list.deleteUser')}
        danger
        {...deleting.dialog}
      >
        <p>{t('list.deleteBody')}</p>
      </ConfirmDialog>
    </Page>
  );
}
