import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';
import { Button, ErrorMessage, Field, TextInput, useAsyncAction } from '../ui';
import { ContinueSignIn } from './ContinueSignIn';
import { signInApi, useSignInContext, type AuthResult } from './flow';
import { PublicShell } from './PublicShell';
import { sectorLink, useFinishSignIn } from './SignInPage';

/** Self sign-up where the sector allows it (else the API's SIGNUP_NOT_ALLOWED, in words). */
export function SignUpPage() {
  const { t } = useTranslation('signin');
  const { sectorID } = useSignInContext();
  const finish = useFinishSignIn('account', '/account');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAsyncAction();
  const [pending, setPending] = useState<AuthResult | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const result = await signInApi.signup(sectorID, { email: email.trim(), password, profile: name.trim() ? { name: name.trim() } : undefined });
      if (result.status === 'SUCCESS' && result.token) await finish({ token: result.token, refreshToken: result.refreshToken });
      else setPending(result);
    });
  };

  if (pending) {
    return (
      <PublicShell title={t('signUp.title')}>
        {/* A signup in a sector that requires MFA mails the enrolment code at once. */}
        <ContinueSignIn sectorID={sectorID} result={pending} username={email.trim()} codeSent={pending.status === 'MFA_ENROLLMENT_REQUIRED'} onDone={(tokens) => void finish(tokens)} onRestart={() => setPending(null)} />
      </PublicShell>
    );
  }

  const violation = (field: string) => (error instanceof ApiError ? error.violation(field) : undefined);
  return (
    <PublicShell title={t('signUp.title')}>
      <form onSubmit={submit} className="stack" noValidate>
        <ErrorMessage error={error} fields={['profile', 'email', 'password']} />
        <Field label={t('signUp.name')} error={violation('profile')}>
          {(p) => <TextInput {...p} autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label={t('signUp.email')} error={violation('email')} required>
          {(p) => <TextInput {...p} type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required />}
        </Field>
        <Field label={t('signUp.password')} error={violation('password')} required hint={t('signUp.passwordHint')}>
          {(p) => <TextInput {...p} type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required />}
        </Field>
        <Button type="submit" variant="primary" className="btn-block" busy={busy} disabled={!email.trim() || !password}>{t('signUp.submit')}</Button>
      </form>
      <p><Link to={sectorLink('/account/sign-in', sectorID)}>{t('signUp.haveAccount')}</Link></p>
    </PublicShell>
  );
}
