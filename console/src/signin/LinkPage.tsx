import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { accountApi } from '../account/accountApi';
import { ApiError, type SessionTokens } from '../api/client';
import { Button, ErrorMessage, Field, TextInput, useAsyncAction } from '../ui';
import { ContinueSignIn } from './ContinueSignIn';
import { signInApi, useSignInContext, type AuthResult } from './flow';
import { interactionHandOver } from './interaction';
import { PublicShell } from './PublicShell';
import { sectorLink, useFinishSignIn } from './SignInPage';

type LinkType = 'invitation' | 'password-reset' | 'magic-link' | 'email-verification' | 'email-change';

const LINK_TYPES: readonly string[] = ['password-reset', 'magic-link', 'email-verification', 'email-change'];

/** The service's own link pages, each of one kind: a link that lost its `type` still opens the right form. */
const TYPE_OF_PAGE: Record<string, LinkType> = {
  '/invite': 'invitation',
  '/reset-password': 'password-reset',
  '/magic-link': 'magic-link',
  '/verify-email': 'email-verification',
  '/confirm-email': 'email-change',
};

/**
 * The page the service's mails link to when the sector's MagicLinkURL points at
 * `/account/link`: `?token=…` (an invitation), `&type=password-reset`,
 * `&type=magic-link`, `&type=email-verification` or `&type=email-change`; on the
 * service's own pages (`/reset-password`, …) the page names the kind when `type` is
 * missing. Nothing is used up until the user acts (mail scanners that open links do no harm).
 */
export function LinkPage() {
  const { t } = useTranslation('signin');
  const [params] = useSearchParams();
  const { sectorID } = useSignInContext();
  const token = params.get('token') ?? '';
  const { pathname } = useLocation();
  const rawType = params.get('type') ?? '';
  const type: LinkType = LINK_TYPES.includes(rawType) ? (rawType as LinkType) : (TYPE_OF_PAGE[pathname] ?? 'invitation');
  const finishHere = useFinishSignIn('account', '/account');
  const navigate = useNavigate();
  // A sign-in link asked for on an app's sign-in request continues that request: the sign-in goes back to its page.
  const interaction = type === 'magic-link' ? params.get('interaction') : null;
  const finish = interaction
    ? async (tokens: SessionTokens) => {
        const { to, state } = interactionHandOver(interaction, sectorID ?? '', tokens);
        await navigate(to, { replace: true, state });
      }
    : finishHere;
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState('');
  const { busy, error, run } = useAsyncAction();
  const [pending, setPending] = useState<AuthResult | null>(null);
  const [verified, setVerified] = useState(false);
  const [changedTo, setChangedTo] = useState('');

  const handle = async (result: AuthResult) => {
    if (result.status === 'SUCCESS' && result.token) await finish({ token: result.token, refreshToken: result.refreshToken });
    else setPending(result);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if ((type === 'invitation' || type === 'password-reset') && password !== confirm) {
      setMismatch(t('link.mismatch'));
      return;
    }
    setMismatch('');
    void run(async () => {
      if (type === 'invitation') await handle(await signInApi.acceptInvite({ token, password }));
      else if (type === 'password-reset') await handle(await signInApi.reset({ token, newPassword: password }));
      else if (type === 'magic-link') await handle(await signInApi.magicFinish({ token }));
      else if (type === 'email-change') setChangedTo((await accountApi.confirmEmailChange(token)).email);
      else {
        await signInApi.verifyEmail({ token });
        setVerified(true);
      }
    });
  };

  if (!token) {
    return (
      <PublicShell title={t('link.incompleteTitle')}>
        <p>{t('link.incomplete')}</p>
        <p><Link to={sectorLink('/account/sign-in', sectorID)}>{t('link.goToSignIn')}</Link></p>
      </PublicShell>
    );
  }

  if (pending) {
    return (
      <PublicShell title={t(`link.title.${type}`)}>
        <ContinueSignIn sectorID={sectorID} result={pending} onDone={(tokens) => void finish(tokens)} onRestart={() => setPending(null)} />
      </PublicShell>
    );
  }

  if (verified) {
    return (
      <PublicShell title={t('link.verifiedTitle')}>
        <p className="notice success" role="status">{t('link.verified')}</p>
        <p><Link to={sectorLink('/account/sign-in', sectorID)}>{t('link.goToAccount')}</Link></p>
      </PublicShell>
    );
  }

  if (changedTo) {
    return (
      <PublicShell title={t('link.changedTitle')}>
        <p className="notice success" role="status">{t('link.changed', { email: changedTo })}</p>
        <p><Link to={sectorLink('/account/sign-in', sectorID)}>{t('link.goToAccount')}</Link></p>
      </PublicShell>
    );
  }

  const policy = error instanceof ApiError ? error.violation('password') ?? error.violation('newPassword') : undefined;
  const linkDead = error instanceof ApiError && ['INVITE_NOT_FOUND', 'INVITE_EXPIRED', 'LINK_INVALID', 'LINK_EXPIRED'].includes(error.reason ?? '');

  return (
    <PublicShell title={t(`link.title.${type}`)}>
      <form onSubmit={submit} className="stack" noValidate>
        {type !== 'password-reset' ? <p>{t(`link.intro.${type}`)}</p> : null}
        <ErrorMessage error={error} fields={type === 'invitation' || type === 'password-reset' ? ['password', 'newPassword'] : undefined} />
        {linkDead ? (
          <p>
            {type === 'password-reset' ? <Link to={sectorLink('/account/forgot-password', sectorID)}>{t('link.askNew')}</Link> : <Link to={sectorLink('/account/sign-in', sectorID)}>{t('link.goToSignIn')}</Link>}
          </p>
        ) : null}
        {type === 'invitation' || type === 'password-reset' ? (
          <>
            <Field label={t('link.newPassword')} error={policy} hint={t('link.newPasswordHint')}>
              {(p) => <TextInput {...p} type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required />}
            </Field>
            <Field label={t('link.repeat')} error={mismatch || undefined}>
              {(p) => <TextInput {...p} type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} required />}
            </Field>
          </>
        ) : null}
        <Button type="submit" variant="primary" className="btn-block" busy={busy} disabled={linkDead || ((type === 'invitation' || type === 'password-reset') && !password)}>
          {t(`link.submit.${type}`)}
        </Button>
      </form>
    </PublicShell>
  );
}
