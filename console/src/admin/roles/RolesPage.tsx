import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('roles');
  const { permissions } = role;
  if (permissions.length === 0) return <span className="muted">{t('none')}</span>;
  const shown = permissions.length > SHOWN_PERMISSIONS ? permissions.slice(0, SHOWN_PERMISSIONS - 1) : permissions;
  return (
    <>
      <span className="visually-hidden">{t('permissionCount', { count: permissions.length })}</span>
      <ul className="plain-list">
        {shown.map((p) => (
          <li key={p}>
            <code>{p}</code>
          </li>
        ))}
        {shown.length < permissions.length ? <li className="muted">{t('more', { n: permissions.length - shown.length })}</li> : null}
      </ul>
    </>
  );
}

export default function RolesPage() {
  const { t } = useTranslation('roles');
  const sectorID = useSectorID();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<SectorRole | null>(null);
  const roles = useQuery({ queryKey: ['roles', sectorID], queryFn: () => rolesApi.list(sectorID), enabled: !!sectorID });

  const deleting = useConfirmedRemoval(
    (r: SectorRole) => rolesApi.remove(sectorID, r.name),
    (_r, role) => {
      toast(t('deleted', { name: role.name }));
      if (editing?.name === role.name) setEditing(null);
      void queryClient.invalidateQueries({ queryKey: ['roles', sectorID] });
      void queryClient.invalidateQueries({ queryKey: ['user-roles'] });
      refreshUserLists(queryClient, sectorID);
    },
  );
  const askDelete = deleting.ask;

  const columns = useMemo<Array<ColumnDef<SectorRole>>>(
    () => [
      { id: 'name', header: t('form.name'), cell: ({ row }) => <code>{row.original.name}</code> },
      { id: 'description', header: t('form.description'), cell: ({ row }) => row.original.description || <span className="muted">{t('noDescription')}</span> },
      { id: 'permissions', header: t('form.permissions'), cell: ({ row }) => <PermissionList role={row.original} /> },
      { id: 'updatedAt', header: t('updated'), cell: ({ row }) => formatTime(row.original.updatedAt) },
      {
        id: 'actions',
        header: t('actions'),
        cell: ({ row }) => {
          const r = row.original;
          return (
            <span className="row-actions">
              <Link to={`${sectorPath(sectorID, 'users')}?role=${encodeURIComponent(r.name)}`} aria-label={t('usersWith', { name: r.name })}>
                {t('admin:nav.users')}
              </Link>
              <Button
                onClick={() => {
                  setCreating(false);
                  setEditing(r);
                }}
                aria-label={t('editLabel', { name: r.name })}
              >
                {t('edit')}
              </Button>
              <Button variant="danger" onClick={() => askDelete(r)} aria-label={t('deleteLabel', { name: r.name })}>
                {t('delete')}
              </Button>
            </span>
          );
        },
      },
    ],
    [askDelete, sectorID, t],
  );

  return (
    <Page
      title={t('title')}
      wide
      actions={creating ? null : <Button variant="primary" onClick={() => { setEditing(null); setCreating(true); }}>{t('new')}</Button>}
    >
      <SectorLead sectorID={sectorID} />
      <p className="page-lead">
        <Trans t={t} i18nKey="lead" components={{ code: <code /> }} />
      </p>
      {creating ? <CreateRoleForm key={sectorID} sectorID={sectorID} taken={roles.data?.roles.map((r) => r.name) ?? []} onDone={() => setCreating(false)} /> : null}
      {editing ? <EditRoleForm key={`${sectorID}:${editing.name}`} sectorID={sectorID} role={editing} onDone={() => setEditing(null)} /> : null}
      <DataTable
        caption={t('caption')}
        columns={columns}
        data={roles.data?.roles}
        loading={roles.isFetching}
        error={roles.error}
        emptyTitle={t('empty')}
        emptyBody={<p>{t('emptyBody')}</p>}
        getRowId={(r) => r.name}
      />
      <ConfirmDialog
        title={t('deleteTitle', { name: deleting.item?.name ?? '' })}
        confirmLabel={t('deleteRole')}
        danger
        {...deleting.dialog}
      >
        <p>{t('deleteBody')}</p>
      </ConfirmDialog>
    </Page>
  );
}
