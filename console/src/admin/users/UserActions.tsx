import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('users');
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
      toast(t('list.deleted', { email: who }));
      queryClient.removeQueries({ queryKey: ['user', user.sub] });
      refreshUserLists(queryClient, sectorID);
      navigate(sectorPath(sectorID, 'users'));
    },
  );

  const sendReset = () =>
    action.run(async () => {
      await api.postPublic<Schemas['LinkSentResponse']>('/api/v1/password/forgot', { email: user.email, sectorID } satisfies Schemas['ForgotPasswordDto']);
      toast(t('actions.resetSent', { email: user.email }));
    }, 'reset');
  const sendVerification = () =>
    action.run(async () => {
      await accountApi.sendEmailVerification(user.sub);
      toast(t('actions.verificationSent', { email: user.email }));
    }, 'verify');
  const resendInvite = () =>
    action.run(async () => {
      const r = await usersApi.resendInvite(user.sub);
      toast(t('list.resent', { email: user.email, expires: formatTime(r.inviteExpiresAt) }));
      refreshUserLists(queryClient, sectorID);
    }, 'invite');

  return (
    <Section title={t('list.actions')} id="user-actions">
      <ErrorMessage error={action.error} title={t('actions.failed')} />
      <div className="user-actions">
        {user.email ? (
          <div className="user-action">
            <Button onClick={() => void sendReset()} busy={action.busyWith === 'reset'}>
              {t('actions.reset')}
            </Button>
            <p className="hint">{t('actions.resetHint')}</p>
          </div>
        ) : null}
        {user.email && !user.emailVerified ? (
          <div className="user-action">
            <Button onClick={() => void sendVerification()} busy={action.busyWith === 'verify'}>
              {t('actions.verification')}
            </Button>
            <p className="hint">{t('actions.verificationHint', { email: user.email })}</p>
          </div>
        ) : null}
        {invited ? (
          <div className="user-action">
            <Button onClick={() => void resendInvite()} busy={action.busyWith === 'invite'}>
              {t('list.resend')}
            </Button>
            <p className="hint">{t('actions.inviteHint')}</p>
          </div>
        ) : null}
        <div className="user-action">
          <Button variant="danger" onClick={() => deleting.ask(user)} disabled={self} aria-describedby={self ? hintId : undefined}>
            {t('list.deleteUser')}
          </Button>
          {self ? (
            <p className="hint" id={hintId}>
              {t('actions.deleteSelf')}
            </p>
          ) : (
            <p className="hint">{t('actions.deleteHint')}</p>
          )}
        </div>
      </div>
      <ConfirmDialog title={t('list.deleteTitle', { email: who })} confirmLabel={t('list.deleteUser')} danger {...deleting.dialog}>
        <p>{t('list.deleteBody')}</p>
      </ConfirmDialog>
    </Section>
  );
}
