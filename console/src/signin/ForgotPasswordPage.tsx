import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Button, ErrorMessage, Field, TextInput, useAsyncAction } from '../ui';
import { signInApi, useSignInContext } from './flow';
import { PublicShell } from './PublicShell';
import { sectorLink } from './SignInPage';

/** Asks for a password-reset link (the same answer whether or not the account exists). */
export function ForgotPasswordPage() {
  const { sectorID } = useSignInContext();
  const [login, setLogin] = useState('');
  const { busy, error, run } = useAsyncAction();
  const [sent, setSent] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const value = login.trim();
      await signInApi.forgot(sectorID, value.includes('@') ? { email: value } : { username: value });
      setSent(true);
    });
  };

  return (
    <PublicShell title="Reset your password">
      {sent ? (
        <p className="notice success" role="status">If an account matches, we sent it a link to choose a new password. The link is valid for a short time.</p>
      ) : (
        <form onSubmit={submit} className="stack" noValidate>
          <p>Enter your email address or username and we will mail you a link.</p>
          <ErrorMessage error={error} />
          <Field label="Email or username">
            {(p) => <TextInput {...p} autoComplete="username" value={login} onChange={(e) => setLogin(e.target.value)} required />}
          </Field>
          <Button type="submit" variant="primary" className="btn-block" busy={busy} disabled={!login.trim()}>Send me a link</Button>
        </form>
      )}
      <p><Link to={sectorLink('/account/sign-in', sectorID)}>Back to sign-in</Link></p>
    </PublicShell>
  );
}
