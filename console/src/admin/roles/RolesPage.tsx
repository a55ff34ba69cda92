import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { Button, ConfirmDialog, DataTable, Page, useConfirmedRemoval, useToast, type ColumnDef } from '../../ui';
import { rolesApi } from '../adminApi';
import { sectorPath } from '../nav';
import { useSectorID } from '../sectorContext';
import { SectorLead } from '../SectorLead';
import type { SectorRole } from '../types';
import { formatTime } from '../util';
import { CreateRoleForm, EditRoleForm } from './RoleForm';
import { refreshUserLists } from '../users/userLists';

/**
 * The sector's roles: named sets of the permission strings its apps check. The
 * list (by name), creating one, editing its description and permissions (the name
 * is fixed), deleting one with confirmation (every holder loses it), and the users
 * holding a role (the user list filtered by it). Users get roles in the user editor.
 */

/** Permissions shown in a row before "and N more". */
const SHOWN_PERMISSIONS = 6;

function PermissionList({ role }: { role: SectorRole }) {
  const { permissions } = role;
  if (permissions.length === 0) return <span className="muted">none</span>;
  const shown = permissions.length > SHOWN_PERMISSIONS ? permissions.slice(0, SHOWN_PERMISSIONS - 1) : permissions;
  return (
    <>
      <span className="visually-hidden">{permissions.length === 1 ? '1 permission: ' : `${permissions.length} permissions: `}</span>
      <ul className="plain-list">
        {shown.map((p) => (
          <li key={p}>
            <code>{p}</code>
          </li>
        ))}
        {shown.length < permissions.length ? <li className="muted">and {permissions.length - shown.length} more (edit the role to see them all)</li> : null}
      </ul>
    </>
  );
}

export default function RolesPage() {
  const sectorID = useSectorID();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<SectorRole | null>(null);
  const roles = useQuery({ queryKey: ['roles', sectorID], queryFn: () => rolesApi.list(sectorID), enabled: !!sectorID });

  const deleting = useConfirmedRemoval(
    (r: SectorRole) => rolesApi.remove(sectorID, r.name),
    (_r, role) => {
      toast(`Role ${role.name} deleted.`);
      if (editing?.name === role.name) setEditing(null);
      void queryClient.invalidateQueries({ queryKey: ['roles', sectorID] });
      void queryClient.invalidateQueries({ queryKey: ['user-roles'] });
      refreshUserLists(queryClient, sectorID);
    },
  );
  const askDelete = deleting.ask;

  const columns = useMemo<Array<ColumnDef<SectorRole>>>(
    () => [
      { id: 'name', header: 'Name', cell: ({ row }) => <code>{row.original.name}</code> },
      { id: 'description', header: 'Description', cell: ({ row }) => row.original.description || <span className="muted">no description</span> },
      { id: 'permissions', header: 'Permissions', cell: ({ row }) => <PermissionList role={row.original} /> },
      { id: 'updatedAt', header: 'Updated', cell: ({ row }) => formatTime(row.original.updatedAt) },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => {
          const r = row.original;
          return (
            <span className="row-actions">
              <Link to={`${sectorPath(sectorID, 'users')}?role=${encodeURIComponent(r.name)}`} aria-label={`Users with role ${r.name}`}>
                Users
              </Link>
              <Button
                onClick={() => {
                  setCreating(false);
                  setEditing(r);
                }}
                aria-label={`Edit role ${r.name}`}
              >
                Edit
              </Button>
              <Button variant="danger" onClick={() => askDelete(r)} aria-label={`Delete role ${r.name}`}>
                Delete
              </Button>
            </span>
          );
        },
      },
    ],
    [askDelete, sectorID],
  );

  return (
    <Page
      title="Roles"
      wide
      actions={creating ? null : <Button variant="primary" onClick={() => { setEditing(null); setCreating(true); }}>New role</Button>}
    >
      <SectorLead sectorID={sectorID} />
      <p className="page-lead">
        A role names a set of permissions, the strings your apps check (for example <code>invoices:read</code>). Give users roles in the user editor: their access
        tokens carry the roles and the union of their permissions, and token introspection answers them as they are now.
      </p>
      {creating ? <CreateRoleForm key={sectorID} sectorID={sectorID} taken={roles.data?.roles.map((r) => r.name) ?? []} onDone={() => setCreating(false)} /> : null}
      {editing ? <EditRoleForm key={`${sectorID}:${editing.name}`} sectorID={sectorID} role={editing} onDone={() => setEditing(null)} /> : null}
      <DataTable
        caption="Roles of this sector"
        columns={columns}
        data={roles.data?.roles}
        loading={roles.isFetching}
        error={roles.error}
        emptyTitle="This sector has no roles yet."
        emptyBody={<p>Create one with “New role”: give it a name, say what it is for, and list its permissions. Then give it to users in the user editor.</p>}
        getRowId={(r) => r.name}
      />
      <ConfirmDialog
        title={`Delete role ${deleting.item?.name ?? ''}?`}
        confirmLabel="Delete role"
        danger
        {...deleting.dialog}
      >
        <p>
          Every user holding it loses it at once, with its permissions: introspection stops answering them now, and new access tokens no longer carry them. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </Page>
  );
}
