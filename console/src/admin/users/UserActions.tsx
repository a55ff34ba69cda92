import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useNavigate } from 'react-router';
import { accountApi } from '../../account/accountApi';
import { api } from '../../api/client';
import type { Schemas } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { Button, ConfirmDialog, ErrorMessage, Section, useAsyncAction, useConfirmedRemoval, useToast } from '../../ui';
import { usersApi } from '../adminApi';
import { sectorPath } from '../nav';
import type { UserListItem, UserProfile } from '../types';
import { formatTime } from '../util';
import { refreshUserLists } from './userLists';

/**
 * What an admin can send a user or do to them, each through an existing operation:
 * - a password reset link: the admin API has none, so the public
 *   POST /password/forgot is asked for the user's email in this sector (it answers the
 *   same whatever happens; the service mails only an address that is verified or was
 *   set by an admin, and never a disabled user);
 * - the email verification link again (POST /users/{sub}/email/verify; refused when
 *   the address is already verified, so only offered while it is not);
 * - the invitation again, for an invited user who has not accepted (POST /users/{sub}/invite);
 * - deleting the user (DELETE /users/{sub}), confirmed first, then back to the list.
 * A failure shows once, in this section; a success is a toast.
 */
export function UserActions({ user, listed, sectorID, who }: { user: UserProfile; listed: UserListItem | undefined; sectorID: string; who: string }) {
  const { me } = useAuth();
  const toast = useToast();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const hintId = useId();
  const action = useAsyncAction();
  const self = me?.sub === user.sub;
  const invited = listed?.inviteStatus === 'pending' || listed?.inviteStatus === 'expired';

  const deleting = useConfirmedRemoval(
    (u: UserProfile) => usersApi.remove(u.sub),
    () => {
      toast(`User ${who} deleted.`);
      queryClient.removeQueries({ queryKey: ['user', user.sub] });
      refreshUserLists(queryClient, sectorID);
      navigate(sectorPath(sectorID, 'users'));
    },
  );

  const sendReset = () =>
    action.run(async () => {
      await api.postPublic<Schemas['LinkSentResponse']>('/api/v1/password/forgot', { email: user.email, sectorID } satisfies Schemas['ForgotPasswordDto']);
      toast(`Password reset requested: ${user.email} receives a link if the account may reset its password.`);
    }, 'reset');
  const sendVerification = () =>
    action.run(async () => {
      await accountApi.sendEmailVerification(user.sub);
      toast(`Verification link sent to ${user.email}.`);
    }, 'verify');
  const resendInvite = () =>
    action.run(async () => {
      const r = await usersApi.resendInvite(user.sub);
      toast(`Invitation sent again to ${user.email}; it expires ${formatTime(r.inviteExpiresAt)}.`);
      refreshUserLists(queryClient, sectorID);
    }, 'invite');

  return (
    <Section title="Actions" id="user-actions">
      <ErrorMessage error={action.error} title="That did not work." />
      <div className="user-actions">
        {user.email ? (
          <div className="user-action">
            <Button onClick={() => void sendReset()} busy={action.busyWith === 'reset'}>
              Send password reset
            </Button>
            <p className="hint">Mails a link to set a new password. Only a verified address (or one an admin set) receives it; a disabled user does not.</p>
          </div>
        ) : null}
        {user.email && !user.emailVerified ? (
          <div className="user-action">
            <Button onClick={() => void sendVerification()} busy={action.busyWith === 'verify'}>
              Resend verification mail
            </Button>
            <p className="hint">Mails a new link that marks {user.email} verified; the earlier link stops working.</p>
          </div>
        ) : null}
        {invited ? (
          <div className="user-action">
            <Button onClick={() => void resendInvite()} busy={action.busyWith === 'invite'}>
              Resend invitation
            </Button>
            <p className="hint">Mails a new invitation link; the earlier one stops working.</p>
          </div>
        ) : null}
        <div className="user-action">
          <Button variant="danger" onClick={() => deleting.ask(user)} disabled={self} aria-describedby={self ? hintId : undefined}>
            Delete user
          </Button>
          {self ? (
            <p className="hint" id={hintId}>
              This is your own account: another admin of this sector or of the default sector can delete it.
            </p>
          ) : (
            <p className="hint">Removes the user at once; their sessions and tokens stop working.</p>
          )}
        </div>
      </div>
      <ConfirmDialog title={`Delete ${who}?`} confirmLabel="Delete user" danger {...deleting.dialog}>
        <p>The user is removed at once and their tokens stop working. This cannot be undone.</p>
      </ConfirmDialog>
    </Section>
  );
}
