import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Button, ErrorMessage, Field, TextInput, useAsyncAction } from '../ui';
import { signInApi, useSignInContext } from './flow';
import { PublicShell } from './PublicShell';
import { sectorLink } from './SignInPage';

/** Asks for a password-reset link (the same answer whether or not the account exists). */
export function ForgotPasswordPage() {
  const { t } = useTranslation('signin');
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
    <PublicShell title={t('forgotPage.title')}>
      {sent ? (
        <p className="notice success" role="status">{t('forgotPage.sent')}</p>
      ) : (
        <form onSubmit={submit} className="stack" noValidate>
          <p>{t('forgotPage.intro')}</p>
          <ErrorMessage error={error} />
          <Field label={t('forgotPage.login')}>
            {(p) => <TextInput {...p} autoComplete="username" value={login} onChange={(e) => setLogin(e.target.value)} required />}
          </Field>
          <Button type="submit" variant="primary" className="btn-block" busy={busy} disabled={!login.trim()}>{t('forgotPage.submit')}</Button>
        </form>
      )}
      <p><Link to={sectorLink('/account/sign-in', sectorID)}>{t('forgotPage.back')}</Link></p>
    </PublicShell>
  );
}
