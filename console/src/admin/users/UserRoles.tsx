import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { Button, Checkbox, ErrorMessage, Loading, useToast } from '../../ui';
import { rolesApi } from '../adminApi';
import { sectorPath } from '../nav';
import { useSectorID } from '../sectorContext';
import type { SectorRole, UserProfile, UserRoles as Held } from '../types';
import { refreshUserLists } from './userLists';

/**
 * The roles a user holds (ticked among the sector's roles, saved with
 * PUT /users/{sub}/roles: the user holds exactly those afterwards) and the union of
 * their permissions, read-only. The service never lets anyone set their own
 * roles, so on one's own account the console shows them with a note instead.
 */

const union = (lists: string[][]): string[] => [...new Set(lists.flat())].sort();
const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

function PermissionsOf({ permissions, title }: { permissions: string[]; title: string }) {
  const { t } = useTranslation('users');
  const id = useId();
  return (
    <div className="permissions">
      <p id={id} className="permissions__title">
        {title}
      </p>
      {permissions.length ? (
        <ul className="plain-list" aria-labelledby={id}>
          {permissions.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{t('roles.none')}</p>
      )}
    </div>
  );
}

function Picker({ user, who, held, roles, sectorID }: { user: UserProfile; who: string; held: Held; roles: SectorRole[]; sectorID: string }) {
  const { t } = useTranslation('users');
  const toast = useToast();
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<string[]>(held.roles);
  // A role held or ticked but no longer listed (deleted meanwhile) stays visible, so it can be unticked knowingly.
  const gone = [...new Set([...held.roles, ...selected])].filter((n) => !roles.some((r) => r.name === n));
  const options = [...roles, ...gone.map((name) => ({ name, description: t('roles.gone'), permissions: [] }))];
  const save = useMutation({
    mutationFn: (names: string[]) => rolesApi.setForUser(user.sub, names),
    onSuccess: (result) => {
      queryClient.setQueryData(['user-roles', user.sub], result);
      refreshUserLists(queryClient, sectorID);
      toast(t('roles.saved', { who }));
    },
    // An unknown role was most likely deleted meanwhile: the list is read again (the ticked one stays, marked).
    onError: () => void queryClient.invalidateQueries({ queryKey: ['roles', sectorID] }),
  });
  // The service names an unknown role by its index in the request: shown beside that role.
  const violations = new Map<string, string>();
  const shown = new Set<string>();
  if (save.error instanceof ApiError) {
    for (const v of save.error.fieldViolations) {
      const m = /^roles\[(\d+)\]$/.exec(v.field);
      const name = m ? save.variables?.[Number(m[1])] : undefined;
      if (name && options.some((r) => r.name === name)) {
        violations.set(name, v.description);
        shown.add(v.field);
      }
    }
  }
  const dirty = !sameSet(selected, held.roles);
  const preview = union(selected.map((n) => roles.find((r) => r.name === n)?.permissions ?? []));

  if (options.length === 0) {
    return (
      <p>
        <Trans t={t} i18nKey="roles.noRoles" components={{ to: <Link to={sectorPath(sectorID, 'roles')} /> }} />
      </p>
    );
  }
  return (
    <>
      <ErrorMessage error={save.error} title={t('roles.failed')} fields={(field) => shown.has(field)} />
      {options.map((r) => (
        <Checkbox
          key={r.name}
          label={r.name}
          hint={r.description || undefined}
          error={violations.get(r.name)}
          checked={selected.includes(r.name)}
          onChange={(e) => {
            const on = e.target.checked;
            setSelected((now) => (on ? [...now, r.name] : now.filter((n) => n !== r.name)));
          }}
        />
      ))}
      <div className="form-actions">
        <Button variant="primary" onClick={() => save.mutate([...selected].sort())} busy={save.isPending}>
          {t('roles.save')}
        </Button>
        {dirty ? (
          <Button onClick={() => { setSelected(held.roles); save.reset(); }}>
            {t('roles.undo')}
          </Button>
        ) : null}
      </div>
      {dirty ? <PermissionsOf title={t('roles.after')} permissions={preview} /> : <PermissionsOf title={t('roles.permissions')} permissions={held.permissions} />}
    </>
  );
}

export function UserRoles({ user }: { user: UserProfile }) {
  const { t } = useTranslation('users');
  const { me } = useAuth();
  const sectorID = useSectorID();
  const self = me?.sub === user.sub;
  const who = user.email || user.preferredUsername || user.sub;
  const roles = useQuery({ queryKey: ['roles', sectorID], queryFn: () => rolesApi.list(sectorID), enabled: !!sectorID && !self });
  const held = useQuery({ queryKey: ['user-roles', user.sub], queryFn: () => rolesApi.ofUser(user.sub) });

  return (
    <fieldset>
      <legend>{t('roles.title')}</legend>
      <ErrorMessage error={held.error ?? roles.error} title={t('roles.loadFailed')} />
      {held.isPending || (!self && roles.isPending) ? <Loading label={t('roles.loading')} /> : null}
      {self && held.data ? (
        <>
          <p>
            {held.data.roles.length ? (
              <>
                {t('roles.youHold')}{' '}
                {held.data.roles.map((n, i) => (
                  <span key={n}>
                    {i ? ', ' : ''}
                    <code>{n}</code>
                  </span>
                ))}
                .
              </>
            ) : (
              t('roles.youHoldNone')
            )}
          </p>
          <PermissionsOf title={t('roles.permissions')} permissions={held.data.permissions} />
          <p className="hint">{t('roles.self')}</p>
        </>
      ) : null}
      {!self && held.data && roles.data ? (
        <Picker key={held.data.roles.join(' ')} user={user} who={who} held={held.data} roles={roles.data.roles} sectorID={sectorID} />
      ) : null}
    </fieldset>
  );
}
