import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { accountApi } from '../account/accountApi';
import { ApiError, type SessionTokens } from '../api/client';
import { Button, ErrorMessage, Field, TextInput, useAsyncAction } from '../ui';
import { ContinueSignIn } from './ContinueSignIn';
import { signInApi, useSignInContext, type AuthResult } from './flow';
import { interactionHandOver } from './interaction';
import { PublicShell } from './PublicShell';
import { sectorLink, useFinishSignIn } from './SignInPage';

type LinkType = 'invitation' | 'password-reset' | 'magic-link' | 'email-verification' | 'email-change';

const TITLES: Record<LinkType, string> = {
  invitation: 'Accept your invitation',
  'password-reset': 'Choose a new password',
  'magic-link': 'Sign in with your link',
  'email-verification': 'Verify your email address',
  'email-change': 'Confirm your new email address',
};

const LINK_TYPES: readonly string[] = ['password-reset', 'magic-link', 'email-verification', 'email-change'];

/**
 * The page the service's mails link to when the sector's MagicLinkURL points at
 * `/account/link`: `?token=…` (an invitation), `&type=password-reset`,
 * `&type=magic-link`, `&type=email-verification` or `&type=email-change`. Nothing
 * is used up until the user acts (mail scanners that open links do no harm).
 */
export function LinkPage() {
  const [params] = useSearchParams();
  const { sectorID } = useSignInContext();
  const token = params.get('token') ?? '';
  const rawType = params.get('type') ?? '';
  const type: LinkType = LINK_TYPES.includes(rawType) ? (rawType as LinkType) : 'invitation';
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
      setMismatch('The two passwords differ.');
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
      <PublicShell title="This link is incomplete">
        <p>The link has no token. Open the link from the mail again, or copy the whole address into the browser.</p>
        <p><Link to={sectorLink('/account/sign-in', sectorID)}>Go to sign-in</Link></p>
      </PublicShell>
    );
  }

  if (pending) {
    return (
      <PublicShell title={TITLES[type]}>
        <ContinueSignIn sectorID={sectorID} result={pending} onDone={(tokens) => void finish(tokens)} onRestart={() => setPending(null)} />
      </PublicShell>
    );
  }

  if (verified) {
    return (
      <PublicShell title="Email address verified">
        <p className="notice success" role="status">Thank you: your email address is verified.</p>
        <p><Link to={sectorLink('/account/sign-in', sectorID)}>Go to your account</Link></p>
      </PublicShell>
    );
  }

  if (changedTo) {
    return (
      <PublicShell title="Email address changed">
        <p className="notice success" role="status">Your email address is now {changedTo}, and it is verified.</p>
        <p><Link to={sectorLink('/account/sign-in', sectorID)}>Go to your account</Link></p>
      </PublicShell>
    );
  }

  const policy = error instanceof ApiError ? error.violation('password') ?? error.violation('newPassword') : undefined;
  const linkDead = error instanceof ApiError && ['INVITE_NOT_FOUND', 'INVITE_EXPIRED', 'LINK_INVALID', 'LINK_EXPIRED'].includes(error.reason ?? '');

  return (
    <PublicShell title={TITLES[type]}>
      <form onSubmit={submit} className="stack" noValidate>
        {type === 'invitation' ? <p>Welcome! Choose a password to finish setting up your account.</p> : null}
        {type === 'magic-link' ? <p>Press the button to sign in on this device.</p> : null}
        {type === 'email-verification' ? <p>Press the button to confirm that this email address is yours.</p> : null}
        {type === 'email-change' ? <p>Press the button to make this address the email of your account.</p> : null}
        <ErrorMessage error={error} fields={type === 'invitation' || type === 'password-reset' ? ['password', 'newPassword'] : undefined} />
        {linkDead ? (
          <p>
            {type === 'password-reset' ? <Link to={sectorLink('/account/forgot-password', sectorID)}>Ask for a new link</Link> : <Link to={sectorLink('/account/sign-in', sectorID)}>Go to sign-in</Link>}
          </p>
        ) : null}
        {type === 'invitation' || type === 'password-reset' ? (
          <>
            <Field label="New password" error={policy} hint="At least 8 characters; a passphrase of a few words works well.">
              {(p) => <TextInput {...p} type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required />}
            </Field>
            <Field label="Repeat the new password" error={mismatch || undefined}>
              {(p) => <TextInput {...p} type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} required />}
            </Field>
          </>
        ) : null}
        <Button type="submit" variant="primary" className="btn-block" busy={busy} disabled={linkDead || ((type === 'invitation' || type === 'password-reset') && !password)}>
          {type === 'invitation' ? 'Set password and sign in' : type === 'password-reset' ? 'Save password and sign in' : type === 'magic-link' ? 'Sign in' : type === 'email-change' ? 'Use this email address' : 'Verify my email address'}
        </Button>
      </form>
    </PublicShell>
  );
}
