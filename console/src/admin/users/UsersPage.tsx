import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button, ConfirmDialog, DataTable, Field, Page, Select, TextInput, useConfirmedRemoval, useToast, type ColumnDef, type SortingState } from '../../ui';
import { rolesApi, usersApi, type UserQuery, type UserSort } from '../adminApi';
import { useSectorID, useSectorRecord } from '../sectorContext';
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
  const label = status === 'active' ? 'invitation accepted' : status;
  return <span className={cls}>{label}</span>;
}

export default function UsersPage() {
  const sectorID = useSectorID();
  const sector = useSectorRecord(sectorID);
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
    const opener = editOpener.current?.isConnected ? editOpener.current : u ? document.querySelector<HTMLElement>(`[aria-label="${CSS.escape(`Edit ${u.email}`)}"]`) : null;
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
      toast(`Invitation sent again to ${u.email}; it expires ${formatTime(r.inviteExpiresAt)}.`);
      refreshUserLists(queryClient, sectorID);
    },
    onError: (error, u) => toast(`The invitation to ${u.email} was not sent: ${(error as Error).message}`, 'error'),
  });
  const deleting = useConfirmedRemoval(
    (u: UserListItem) => usersApi.remove(u.sub),
    (_r, u) => {
      toast(`User ${u.email} deleted.`);
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
        header: 'Name',
        enableSorting: true,
        cell: ({ row }) => (row.original.name ? <span className="wrap-anywhere">{row.original.name}</span> : <span className="muted">no name</span>),
      },
      {
        accessorKey: 'email',
        header: 'Email',
        enableSorting: true,
        cell: ({ row }) => (
          <Link className="wrap-anywhere" to={userPath(sectorID, row.original.sub)}>
            {row.original.email || row.original.sub}
          </Link>
        ),
      },
      {
        id: 'status',
        header: 'Status',
        cell: ({ row }) => (
          <span className="row-actions">
            {row.original.disabled ? <span className="badge badge-warn">Disabled</span> : null}
            {row.original.isAdmin ? <span className="badge">admin</span> : null}
            {row.original.emailVerified ? <span className="badge badge-ok">email verified</span> : <span className="badge">email unverified</span>}
            {inviteBadge(row.original.inviteStatus)}
          </span>
        ),
      },
      { accessorKey: 'createdAt', header: 'Created', enableSorting: true, cell: ({ row }) => formatTime(row.original.createdAt) },
      { accessorKey: 'updatedAt', header: 'Updated', enableSorting: true, cell: ({ row }) => formatTime(row.original.updatedAt) },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => {
          const u = row.original;
          return (
            <span className="row-actions">
              <Button onClick={(e) => openEditor(u, e.currentTarget)} aria-label={`Edit ${u.email}`}>
                Edit
              </Button>
              {u.inviteStatus === 'pending' || u.inviteStatus === 'expired' ? (
                <Button onClick={() => resendTo(u)} busy={resendingSub === u.sub} aria-label={`Resend invitation to ${u.email}`}>
                  Resend invitation
                </Button>
              ) : null}
              <Button variant="danger" onClick={() => askDelete(u)} aria-label={`Delete ${u.email}`}>
                Delete
              </Button>
            </span>
          );
        },
      },
    ],
    [resendTo, resendingSub, askDelete, sectorID],
  );

  const resetPage = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setPage(1);
  };

  return (
    <Page
      title="Users"
      wide
      actions={
        <Button ref={newUserButton} variant="primary" onClick={() => setCreating(true)} aria-expanded={creating}>
          New user
        </Button>
      }
    >
      {sector ? <p className="page-lead">Sector <strong>{sector.name}</strong> ({sector.slug})</p> : null}
      {creating ? <CreateUserForm sectorID={sectorID} onDone={closeCreate} /> : null}
      {editing ? <EditUserForm key={editing.sub} sub={editing.sub} email={editing.email} isAdmin={editing.isAdmin} onDone={closeEditor} /> : null}
      <div className="toolbar" role="search" aria-label="Users">
        <Field label="Search users" hint="Part of a name, email or username.">
          {(p) => <TextInput {...p} type="search" value={search} onChange={(e) => resetPage(setSearch)(e.target.value)} />}
        </Field>
        <Field label="Exact email">
          {(p) => <TextInput {...p} type="search" value={email} onChange={(e) => resetPage(setEmail)(e.target.value)} />}
        </Field>
        <Field label="Email verification">
          {(p) => (
            <Select
              {...p}
              value={verified}
              onChange={(e) => resetPage(setVerified)(e.target.value as '' | 'true' | 'false')}
              options={[
                { value: '', label: 'Any' },
                { value: 'true', label: 'Verified' },
                { value: 'false', label: 'Not verified' },
              ]}
            />
          )}
        </Field>
        <Field label="Status">
          {(p) => (
            <Select
              {...p}
              value={disabled}
              onChange={(e) => resetPage(setDisabled)(e.target.value as '' | 'true' | 'false')}
              options={[
                { value: '', label: 'All' },
                { value: 'false', label: 'Enabled' },
                { value: 'true', label: 'Disabled' },
              ]}
            />
          )}
        </Field>
        <Field label="Role">
          {(p) => (
            <Select {...p} value={role} onChange={(e) => setRole(e.target.value)}>
              <option value="">Any</option>
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
        <Field label="Rows per page">
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
        caption="Users of this sector"
        columns={columns}
        data={users.data?.users}
        loading={users.isFetching}
        error={users.error}
        emptyTitle={filtered ? 'No user matches these filters.' : 'No users yet.'}
        emptyBody={filtered ? undefined : <p>Create a user or send an invitation with “New user”.</p>}
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
        title={`Delete ${deleting.item?.email ?? 'this user'}?`}
        confirmLabel="Delete user"
        danger
        {...deleting.dialog}
      >
        <p>The user is removed at once and their tokens stop working. This cannot be undone.</p>
      </ConfirmDialog>
    </Page>
  );
}
