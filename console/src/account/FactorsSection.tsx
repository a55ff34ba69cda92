import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';
import { i18n } from '../i18n';
import { Button, ConfirmDialog, CopyButton, EmptyState, ErrorMessage, Field, Loading, Section, Select, TextInput, useConfirmedRemoval, useToast } from '../ui';
import { accountApi, type FactorType, type NewOtpRegistration, type OtpRegistration } from './accountApi';
import { useStepUp } from './StepUp';

/** A factor's kind in words. */
const typeLabel = (type: FactorType): string => i18n.t(`account:factors.type.${type}`);

/** The otpauth:// URI as a QR code image (a data: URL, drawn in the browser; nothing leaves the page). */
function QrCode({ uri }: { uri: string }) {
  const { t } = useTranslation('account');
  const [src, setSrc] = useState('');
  useEffect(() => {
    let live = true;
    void QRCode.toDataURL(uri, { margin: 1, width: 200, errorCorrectionLevel: 'M' }).then((url) => {
      if (live) setSrc(url);
    });
    return () => {
      live = false;
    };
  }, [uri]);
  return src ? <img className="qr" src={src} alt={t('factors.qr')} width={200} height={200} /> : <Loading label={t('factors.drawing')} />;
}

/** Confirms a new factor with its first code. */
function VerifyFactor({ sub, registration, onDone, onCancel }: { sub: string; registration: NewOtpRegistration & { destination?: string }; onDone(): void; onCancel(): Promise<void> }) {
  const { t } = useTranslation('account');
  const [code, setCode] = useState('');
  const verify = useMutation({ mutationFn: () => accountApi.verifyFactor(sub, registration.registrationID, code.trim()), onSuccess: onDone });
  // Cancelling removes the unconfirmed factor: its secret is not shown again, so it could never be confirmed later.
  const cancel = useMutation({ mutationFn: onCancel });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  const wrong = verify.error instanceof ApiError && verify.error.reason === 'INVALID_CODE' ? t('factors.wrong') : undefined;
  return (
    <form onSubmit={submit} className="card stack" aria-labelledby="verify-factor-heading">
      <h3 id="verify-factor-heading">{t(`factors.confirmType.${registration.type}`)}</h3>
      {registration.type === 'totp' ? (
        <>
          <p>{t('factors.scan')}</p>
          <QrCode uri={registration.otpauthURL} />
          <p>
            {t('factors.secret')} <code data-testid="totp-secret">{registration.secret}</code> <CopyButton value={registration.secret} label={t('factors.copySecret')} />
          </p>
          <p className="hint">{t('factors.secretOnce')}</p>
        </>
      ) : (
        <p>{t('factors.sentTo', { to: registration.destination || t('factors.theAddress') })}</p>
      )}
      {!wrong ? <ErrorMessage error={verify.error ?? cancel.error} /> : null}
      <Field label={t('factors.code')} error={wrong}>
        {(p) => <TextInput {...p} inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} required />}
      </Field>
      <div className="actions">
        <Button type="submit" variant="primary" busy={verify.isPending} disabled={!code.trim()}>{t('factors.confirm')}</Button>
        <Button onClick={() => cancel.mutate()} busy={cancel.isPending}>{t('factors.cancelSetUp')}</Button>
      </div>
    </form>
  );
}

/** Two-step verification: one-time-code factors (authenticator app, email, SMS); adding and removing need a recent sign-in. */
export function FactorsSection({ sub, phone, email }: { sub: string; phone?: string; email?: string }) {
  const { t } = useTranslation('account');
  const toast = useToast();
  const withStepUp = useStepUp();
  const client = useQueryClient();
  const key = ['account', sub, 'factors'];
  const list = useQuery({ queryKey: key, queryFn: () => accountApi.factors(sub) });
  const [type, setType] = useState<FactorType>('totp');
  const [destination, setDestination] = useState('');
  const [pending, setPending] = useState<(NewOtpRegistration & { destination?: string }) | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: key });

  const add = useMutation({
    mutationFn: () => withStepUp(() => accountApi.addFactor(sub, type, type === 'totp' ? undefined : destination.trim())),
    onSuccess: (created) => {
      setPending({ ...created, destination: destination.trim() });
      void refresh();
    },
  });
  const removal = useConfirmedRemoval((r: OtpRegistration) => withStepUp(() => accountApi.deleteFactor(sub, r.registrationID)), () => {
    toast(t('factors.removed'));
    void refresh();
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  const suggested = type === 'sms' ? phone : type === 'email' ? email : undefined;

  return (
    <Section title={t('parts.factors')} id="factors">
      <p className="muted">{t('factors.intro')}</p>
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.registrations.length === 0 ? (
        <EmptyState title={t('factors.none')} />
      ) : (
        <ul className="item-list" aria-label={t('factors.list')}>
          {list.data.registrations.map((r) => (
            <li key={r.registrationID}>
              <div className="item-main">
                <p><strong>{typeLabel(r.type)}</strong> {r.destination ? <span>{r.destination}</span> : null}</p>
                <p><span className={r.verified ? 'badge badge-ok' : 'badge badge-warn'}>{r.verified ? t('factors.active') : t('factors.notConfirmed')}</span></p>
              </div>
              <div className="actions">
                <Button variant="danger" onClick={() => removal.ask(r)} aria-label={t('factors.removeLabel', { factor: `${typeLabel(r.type)} ${r.destination}`.trim() })}>{t('factors.remove')}</Button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {pending ? (
        <VerifyFactor
          sub={sub}
          registration={pending}
          onCancel={async () => {
            await withStepUp(() => accountApi.deleteFactor(sub, pending.registrationID));
            setPending(null);
            void refresh();
          }}
          onDone={() => {
            setPending(null);
            toast(t('factors.confirmed', { type: typeLabel(pending.type) }));
            void refresh();
          }}
        />
      ) : (
        <form onSubmit={submit} className="stack" aria-label={t('factors.add')}>
          <h3>{t('factors.add')}</h3>
          <ErrorMessage error={add.error} fields={type !== 'totp' ? ['destination'] : undefined} />
          <Field label={t('factors.kind')}>
            {(p) => (
              <Select {...p} value={type} onChange={(e) => setType(e.target.value as FactorType)}
                options={(['totp', 'email', 'sms'] as const).map((value) => ({ value, label: typeLabel(value) }))} />
            )}
          </Field>
          {type !== 'totp' ? (
            <Field
              label={type === 'email' ? t('factors.email') : t('factors.phone')}
              hint={type === 'sms' ? t('factors.phoneHint') : undefined}
              error={add.error instanceof ApiError ? add.error.violation('destination') : undefined}
            >
              {(p) => (
                <TextInput {...p} type={type === 'email' ? 'email' : 'tel'} autoComplete={type === 'email' ? 'email' : 'tel'} value={destination}
                  placeholder={suggested ?? undefined} onChange={(e) => setDestination(e.target.value)} required />
              )}
            </Field>
          ) : null}
          <div className="actions">
            <Button type="submit" variant="primary" busy={add.isPending} disabled={type !== 'totp' && !destination.trim()}>
              {type === 'totp' ? t('factors.setUpApp') : t('factors.sendCode')}
            </Button>
          </div>
        </form>
      )}
      <ConfirmDialog
        title={t('factors.removeTitle')}
        confirmLabel={t('factors.remove')}
        danger
        {...removal.dialog}
      >
        <p>{t('factors.removeBody', { factor: removal.item ? `${typeLabel(removal.item.type)} ${removal.item.destination}`.trim() : '' })}</p>
      </ConfirmDialog>
    </Section>
  );
}
