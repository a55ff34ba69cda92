import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, setAccessToken } from '../api/client';
import { ConfirmDialog, Field, TextInput } from '../ui';
import { accountApi } from './accountApi';

/** Runs an account change; when the service asks for a recent sign-in, asks for the password once and retries. */
export type WithStepUp = <T>(action: () => Promise<T>) => Promise<T>;

const StepUpContext = createContext<WithStepUp | null>(null);

/**
 * Step-up on the account page: sensitive changes (email or phone, passkeys, second
 * factors, linked accounts) need a sign-in of the last five minutes. When the
 * service answers REAUTHENTICATION_REQUIRED, a dialog asks for the current
 * password, `POST /users/{sub}/reauthenticate` answers a fresh access token of the
 * same session, and the change is sent again once. Accounts without a password
 * sign out and in again instead (the dialog says so).
 */
export function StepUpProvider({ sub, children }: { sub: string; children: ReactNode }) {
  const { t } = useTranslation('account');
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const settle = useRef<((confirmed: boolean) => void) | null>(null);

  const close = (confirmed: boolean) => {
    settle.current?.(confirmed);
    settle.current = null;
    setOpen(false);
    setPassword('');
    setError(null);
  };

  const confirm = async () => {
    setBusy(true);
    try {
      const { token } = await accountApi.reauthenticate(sub, password);
      setAccessToken(token);
      close(true);
    } catch (e) {
      setError(e instanceof ApiError && e.reason === 'INVALID_CREDENTIALS' ? new Error(t('stepUp.wrong')) : e);
    } finally {
      setBusy(false);
    }
  };

  const withStepUp = useCallback<WithStepUp>(async (action) => {
    try {
      return await action();
    } catch (e) {
      if (!(e instanceof ApiError && e.reason === 'REAUTHENTICATION_REQUIRED')) throw e;
      const confirmed = await new Promise<boolean>((resolve) => {
        settle.current = resolve;
        setOpen(true);
      });
      if (!confirmed) throw e;
      return action();
    }
  }, []);

  return (
    <StepUpContext.Provider value={withStepUp}>
      {children}
      <ConfirmDialog
        open={open}
        title={t('stepUp.title')}
        confirmLabel={t('stepUp.continue')}
        busy={busy}
        error={error}
        onConfirm={() => void confirm()}
        onCancel={() => close(false)}
      >
        <p>{t('stepUp.body')}</p>
        <Field label={t('stepUp.current')}>
          {(p) => <TextInput {...p} type="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} />}
        </Field>
      </ConfirmDialog>
    </StepUpContext.Provider>
  );
}

/** The step-up wrapper of the account page (inside StepUpProvider). */
export function useStepUp(): WithStepUp {
  const withStepUp = useContext(StepUpContext);
  if (!withStepUp) throw new Error('useStepUp used outside StepUpProvider');
  return withStepUp;
}
