import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { Button, ConfirmDialog, CopyButton, EmptyState, ErrorMessage, Field, Loading, Section, Select, TextInput, useConfirmedRemoval, useToast } from '../ui';
import { accountApi, type FactorType, type NewOtpRegistration, type OtpRegistration } from './accountApi';
import { useStepUp } from './StepUp';

const TYPE_LABELS: Record<FactorType, string> = { totp: 'Authenticator app', email: 'Email', sms: 'Text message (SMS)' };

/** The otpauth:// URI as a QR code image (a data: URL, drawn in the browser; nothing leaves the page). */
function QrCode({ uri }: { uri: string }) {
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
  return src ? <img className="qr" src={src} alt="QR code for your authenticator app (the secret is also shown as text)" width={200} height={200} /> : <Loading label="Drawing the QR code…" />;
}

/** Confirms a new factor with its first code. */
function VerifyFactor({ sub, registration, onDone, onCancel }: { sub: string; registration: NewOtpRegistration & { destination?: string }; onDone(): void; onCancel(): Promise<void> }) {
  const [code, setCode] = useState('');
  const verify = useMutation({ mutationFn: () => accountApi.verifyFactor(sub, registration.registrationID, code.trim()), onSuccess: onDone });
  // Cancelling removes the unconfirmed factor: its secret is not shown again, so it could never be confirmed later.
  const cancel = useMutation({ mutationFn: onCancel });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  const wrong = verify.error instanceof ApiError && verify.error.reason === 'INVALID_CODE' ? 'That code is not right. Try the current one.' : undefined;
  return (
    <form onSubmit={submit} className="card stack" aria-labelledby="verify-factor-heading">
      <h3 id="verify-factor-heading">Confirm your {TYPE_LABELS[registration.type].toLowerCase()}</h3>
      {registration.type === 'totp' ? (
        <>
          <p>Scan this QR code with your authenticator app, or type the secret into it. Then enter the 6-digit code it shows.</p>
          <QrCode uri={registration.otpauthURL} />
          <p>
            Secret: <code data-testid="totp-secret">{registration.secret}</code> <CopyButton value={registration.secret} label="Copy secret" />
          </p>
          <p className="hint">The secret is shown only now.</p>
        </>
      ) : (
        <p>We sent a code to {registration.destination || 'the address you entered'}. Enter it here.</p>
      )}
      {!wrong ? <ErrorMessage error={verify.error ?? cancel.error} /> : null}
      <Field label="Verification code" error={wrong}>
        {(p) => <TextInput {...p} inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} required />}
      </Field>
      <div className="actions">
        <Button type="submit" variant="primary" busy={verify.isPending} disabled={!code.trim()}>Confirm</Button>
        <Button onClick={() => cancel.mutate()} busy={cancel.isPending}>Cancel set-up</Button>
      </div>
    </form>
  );
}

/** Two-step verification: one-time-code factors (authenticator app, email, SMS); adding and removing need a recent sign-in. */
export function FactorsSection({ sub, phone, email }: { sub: string; phone?: string; email?: string }) {
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
    toast('Factor removed.');
    void refresh();
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  const suggested = type === 'sms' ? phone : type === 'email' ? email : undefined;

  return (
    <Section title="Two-step verification" id="factors">
      <p className="muted">One-time codes as a second factor after your password.</p>
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.registrations.length === 0 ? (
        <EmptyState title="No one-time-code factors yet" />
      ) : (
        <ul className="item-list" aria-label="Your one-time-code factors">
          {list.data.registrations.map((r) => (
            <li key={r.registrationID}>
              <div className="item-main">
                <p><strong>{TYPE_LABELS[r.type]}</strong> {r.destination ? <span>{r.destination}</span> : null}</p>
                <p><span className={r.verified ? 'badge badge-ok' : 'badge badge-warn'}>{r.verified ? 'Active' : 'Not confirmed: remove it and add it again'}</span></p>
              </div>
              <div className="actions">
                <Button variant="danger" onClick={() => removal.ask(r)} aria-label={`Remove ${TYPE_LABELS[r.type]} ${r.destination}`.trim()}>Remove</Button>
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
            toast(`${TYPE_LABELS[pending.type]} confirmed: it is now a second factor.`);
            void refresh();
          }}
        />
      ) : (
        <form onSubmit={submit} className="stack" aria-label="Add a factor">
          <h3>Add a factor</h3>
          <ErrorMessage error={add.error} fields={type !== 'totp' ? ['destination'] : undefined} />
          <Field label="Kind">
            {(p) => (
              <Select {...p} value={type} onChange={(e) => setType(e.target.value as FactorType)}
                options={[{ value: 'totp', label: TYPE_LABELS.totp }, { value: 'email', label: TYPE_LABELS.email }, { value: 'sms', label: TYPE_LABELS.sms }]} />
            )}
          </Field>
          {type !== 'totp' ? (
            <Field
              label={type === 'email' ? 'Email address' : 'Phone number'}
              hint={type === 'sms' ? 'E.164, e.g. +14155550100' : undefined}
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
              {type === 'totp' ? 'Set up an authenticator app' : 'Send a code'}
            </Button>
          </div>
        </form>
      )}
      <ConfirmDialog
        title="Remove this factor?"
        confirmLabel="Remove"
        danger
        {...removal.dialog}
      >
        <p>{removal.item ? `${TYPE_LABELS[removal.item.type]} ${removal.item.destination}`.trim() : ''} will no longer be accepted at sign-in.</p>
      </ConfirmDialog>
    </Section>
  );
}
