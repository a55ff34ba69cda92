import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, type SessionTokens } from '../api/client';
import { i18n } from '../i18n';
import { Button, ErrorMessage, Field, TextInput, useAsyncAction } from '../ui';
import { isCeremonyCancelled, passkeySignIn, signInApi, type AuthResult } from './flow';

/** Reasons after which the transaction cannot go on: the user starts again. */
const DEAD_TRANSACTION = new Set(['TRANSACTION_EXPIRED', 'TRANSACTION_COMPLETED', 'TRANSACTION_FAILED', 'TRANSACTION_NOT_FOUND']);

export interface ContinueSignInProps {
  sectorID?: string;
  /** The result that asked for another step (`MFA_REQUIRED` or `MFA_ENROLLMENT_REQUIRED`). */
  result: AuthResult;
  /** The login the user typed, to prefill the enrollment email. */
  username?: string;
  /** A code was just sent (a code as the first factor, or the enrolment code a signup mails at once): say so and start the resend cooldown. */
  codeSent?: boolean;
  onDone(tokens: SessionTokens): void;
  onRestart(): void;
}

/** Counts down the seconds of a resend cooldown. */
function useCountdown(initial = 0): [number, (seconds: number) => void] {
  const [left, setLeft] = useState(initial);
  useEffect(() => {
    if (left <= 0) return undefined;
    const timer = setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => clearTimeout(timer);
  }, [left]);
  return [left, setLeft];
}

function codeError(error: unknown): string | undefined {
  if (error instanceof ApiError && error.reason === 'INVALID_CODE') {
    const left = error.metadata.attemptsLeft;
    return left !== undefined ? i18n.t('signin:step.wrongCodeLeft', { count: Number(left) }) : i18n.t('signin:step.wrongCode');
  }
  return undefined;
}

/**
 * The steps after the first factor, as the transaction asks: a password (after a
 * code), a one-time code (authenticator app, or one sent by mail or SMS), a passkey,
 * or — in a sector that requires MFA — enrolling the email as the second factor.
 */
export function ContinueSignIn({ sectorID, result, username, codeSent = false, onDone, onRestart }: ContinueSignInProps) {
  const { t } = useTranslation('signin');
  const [current, setCurrent] = useState(result);
  const [useCode, setUseCode] = useState(false);
  const { busy, error, setError, run } = useAsyncAction({
    onError: (e) => {
      if (e instanceof ApiError && e.reason === 'RESEND_COOLDOWN') setCooldown(e.retryAfterSeconds ?? 30);
    },
  });
  const [value, setValue] = useState('');
  const [email, setEmail] = useState(username?.includes('@') ? username : '');
  const [sent, setSent] = useState(
    !codeSent ? '' : result.status === 'MFA_ENROLLMENT_REQUIRED' ? t('step.sentTo', { to: username ?? t('step.yourEmail') }) : t('step.sentMaybe'),
  );
  const [cooldown, setCooldown] = useCountdown(codeSent ? 30 : 0);
  const heading = useRef<HTMLHeadingElement>(null);

  const transactionID = current.transactionID;
  const step = current.status === 'MFA_ENROLLMENT_REQUIRED' ? 'enroll' : current.challengeType === 'WEBAUTHN' && !useCode ? 'passkey' : current.challengeType === 'PASSWORD' ? 'password' : 'code';

  // Each new step is announced by moving focus to its heading.
  useEffect(() => heading.current?.focus(), [step]);

  const advance = (next: AuthResult) => {
    if (next.status === 'SUCCESS' && next.token) {
      onDone({ token: next.token, refreshToken: next.refreshToken });
      return;
    }
    setValue('');
    setSent('');
    setUseCode(false);
    setCurrent(next);
  };

  const sendCode = () =>
    run(async () => {
      if (step === 'enroll') {
        await signInApi.enrollBegin(sectorID, { transactionId: transactionID, email });
        setSent(t('step.sentTo', { to: email }));
      } else {
        await signInApi.otpBegin(sectorID, { transactionID });
        setSent(t('step.sentAny'));
      }
      setCooldown(30);
    });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (step === 'password') advance(await signInApi.password(sectorID, { transactionID, password: value }));
      else if (step === 'code') advance(await signInApi.otp(sectorID, { transactionID, code: value.trim() }));
      else if (step === 'enroll') {
        const tokens = await signInApi.enrollVerify(sectorID, { transactionId: transactionID, email, code: value.trim() });
        onDone(tokens);
      }
    });
  };

  const confirmWithPasskey = () =>
    run(async () => {
      try {
        advance(await passkeySignIn(sectorID, { transactionID }));
      } catch (e) {
        if (isCeremonyCancelled(e)) throw new Error(t('step.passkeyClosed'));
        throw e;
      }
    });

  const dead = error instanceof ApiError && error.reason !== undefined && DEAD_TRANSACTION.has(error.reason);
  const violation = (field: string) => (error instanceof ApiError ? error.violation(field) : undefined);
  const wrongCode = codeError(error);
  const fieldError = wrongCode ?? violation('code');
  // The violations this step shows at its inputs (said there, not again in the error).
  const shownFields = step === 'password' ? ['password'] : step === 'enroll' ? ['email', 'code'] : ['code'];

  return (
    <div className="stack">
      {step === 'passkey' ? (
        <>
          <h2 ref={heading} tabIndex={-1}>{t('step.passkeyTitle')}</h2>
          <p>{t('step.passkeyIntro')}</p>
          <ErrorMessage error={error} />
          <div className="actions">
            <Button variant="primary" busy={busy} onClick={() => void confirmWithPasskey()}>{t('step.usePasskey')}</Button>
            <Button variant="link" onClick={() => { setError(null); setUseCode(true); }}>{t('step.useCodeInstead')}</Button>
          </div>
        </>
      ) : (
        <form onSubmit={submit} noValidate className="stack">
          {step === 'password' ? (
            <>
              <h2 ref={heading} tabIndex={-1}>{t('step.passwordTitle')}</h2>
              <p>{t('step.passwordIntro')}</p>
            </>
          ) : step === 'enroll' ? (
            <>
              <h2 ref={heading} tabIndex={-1}>{t('step.enrollTitle')}</h2>
              <p>
                {sent ? t('step.enrollSent') : t('step.enrollIntro')}
              </p>
            </>
          ) : (
            <>
              <h2 ref={heading} tabIndex={-1}>{t('step.codeTitle')}</h2>
              <p>{t('step.codeIntro')}</p>
            </>
          )}
          {!wrongCode ? <ErrorMessage error={error} fields={shownFields} /> : null}
          {sent ? <p className="notice" role="status">{sent}</p> : null}
          {step === 'enroll' ? (
            <Field label={t('step.email')} error={violation('email')}>
              {(p) => <TextInput {...p} type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required />}
            </Field>
          ) : null}
          {step === 'password' ? (
            <Field label={t('step.password')} error={violation('password')}>
              {(p) => <TextInput {...p} type="password" autoComplete="current-password" value={value} onChange={(e) => setValue(e.target.value)} required />}
            </Field>
          ) : (
            <Field label={t('step.code')} error={fieldError} hint={t('step.codeHint')}>
              {(p) => <TextInput {...p} inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]*" maxLength={8} value={value} onChange={(e) => setValue(e.target.value)} required />}
            </Field>
          )}
          <div className="actions">
            <Button type="submit" variant="primary" busy={busy} disabled={dead}>{step === 'password' ? t('step.continue') : t('step.verify')}</Button>
            {step !== 'password' ? (
              <Button onClick={() => void sendCode()} disabled={busy || cooldown > 0 || dead || (step === 'enroll' && !email)}>
                {sent ? t('step.sendNew') : step === 'enroll' ? t('step.sendEnroll') : t('step.sendMe')}
              </Button>
            ) : null}
            {current.challengeType === 'WEBAUTHN' && useCode ? (
              <Button variant="link" onClick={() => { setError(null); setUseCode(false); }}>{t('step.usePasskeyInstead')}</Button>
            ) : null}
          </div>
          {cooldown > 0 ? <p className="muted">{t('step.cooldown', { seconds: cooldown })}</p> : null}
        </form>
      )}
      <p>
        <Button variant="link" onClick={onRestart}>{dead ? t('step.startAgain') : t('step.cancelRestart')}</Button>
      </p>
    </div>
  );
}
