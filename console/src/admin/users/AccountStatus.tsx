import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../auth/AuthContext';
import { Button, ConfirmDialog, ErrorMessage, useConfirmedRemoval, useToast } from '../../ui';
import { usersApi } from '../adminApi';
import type { UserProfile } from '../types';
import { refreshUserLists } from './userLists';

/**
 * Whether the user may sign in, and the switch (PUT /users/{sub} with `disabled`).
 * Disabling ends every session and token of the user at once, so it is confirmed
 * first; enabling restores sign-in only (the old sessions stay ended). The service
 * never lets admins switch off their own account, so the console does not offer it.
 */
export function AccountStatus({ user }: { user: UserProfile }) {
  const { t } = useTranslation('users');
  const { me } = useAuth();
  const toast = useToast();
  const queryClient = useQueryClient();
  const hintId = useId();
  const self = me?.sub === user.sub;
  const who = user.email || user.preferredUsername || user.sub;

  const refresh = () => {
    refreshUserLists(queryClient);
    void queryClient.invalidateQueries({ queryKey: ['user', user.sub] });
  };
  const disabling = useConfirmedRemoval(
    (u: UserProfile) => usersApi.update(u.sub, { disabled: true }),
    () => {
      toast(t('status.disabledToast', { who }));
      refresh();
    },
  );
  const enable = useMutation({
    mutationFn: () => usersApi.update(user.sub, { disabled: false }),
    onSuccess: () => {
      toast(t('status.enabledToast', { who }));
      refresh();
    },
  });

  return (
    <fieldset>
      <legend>{t('status.title')}</legend>
      <ErrorMessage error={enable.error} title={t('status.enableFailed')} />
      <p>
        {user.disabled ? <span className="badge badge-warn">{t('badge.disabled')}</span> : <span className="badge badge-ok">{t('list.enabled')}</span>}{' '}
        {user.disabled ? t('status.cannot') : t('status.can')}
      </p>
      <div className="form-actions">
        {user.disabled ? (
          <Button variant="primary" onClick={() => enable.mutate()} busy={enable.isPending} disabled={self} aria-describedby={self ? hintId : undefined}>
            {t('status.enable')}
          </Button>
        ) : (
          <Button variant="danger" onClick={() => disabling.ask(user)} disabled={self} aria-describedby={self ? hintId : undefined}>
            {t('status.disable')}
          </Button>
        )}
      </div>
      {self ? (
        <p className="hint" id={hintId}>
          {t('status.self')}
        </p>
      ) : null}
      <ConfirmDialog title={t('status.disableTitle', { who })} confirmLabel={t('status.disable')} danger {...disabling.dialog}>
        <p>{t('status.disableBody', { who })}</p>
      </ConfirmDialog>
    </fieldset>
  );
}
