import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
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
      toast(`User ${who} disabled and signed out everywhere.`);
      refresh();
    },
  );
  const enable = useMutation({
    mutationFn: () => usersApi.update(user.sub, { disabled: false }),
    onSuccess: () => {
      toast(`User ${who} enabled: they can sign in again.`);
      refresh();
    },
  });

  return (
    <fieldset>
      <legend>Account status</legend>
      <ErrorMessage error={enable.error} title="The user was not enabled." />
      <p>
        {user.disabled ? <span className="badge badge-warn">Disabled</span> : <span className="badge badge-ok">Enabled</span>}{' '}
        {user.disabled ? 'This user cannot sign in until an admin enables them again.' : 'This user can sign in.'}
      </p>
      <div className="form-actions">
        {user.disabled ? (
          <Button variant="primary" onClick={() => enable.mutate()} busy={enable.isPending} disabled={self} aria-describedby={self ? hintId : undefined}>
            Enable user
          </Button>
        ) : (
          <Button variant="danger" onClick={() => disabling.ask(user)} disabled={self} aria-describedby={self ? hintId : undefined}>
            Disable user
          </Button>
        )}
      </div>
      {self ? (
        <p className="hint" id={hintId}>
          This is your own account: you cannot disable or enable it yourself. Another admin of this sector or of the default sector can.
        </p>
      ) : null}
      <ConfirmDialog title={`Disable ${who}?`} confirmLabel="Disable user" danger {...disabling.dialog}>
        <p>
          {who} is signed out everywhere at once: every session and token of theirs stops working. They cannot sign in until an admin enables them again.
        </p>
      </ConfirmDialog>
    </fieldset>
  );
}
