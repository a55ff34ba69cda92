import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { accountApi, type OtpRegistration, type Passkey } from '../../account/accountApi';
import { useStepUp } from '../../account/StepUp';
import { Button, ConfirmDialog, DataTable, Section, useConfirmedRemoval, useToast, type ColumnDef } from '../../ui';
import { i18n } from '../../i18n';
import { formatTime } from '../util';

const factorName = (type: OtpRegistration['type']) => i18n.t(`users:factors.kind.${type}`);

/**
 * A user's second factors as an admin sees them: one-time-code registrations
 * (GET /users/{sub}/otp-registrations) and passkeys (GET /users/{sub}/webauthn-credentials),
 * each removable after a confirmation. The service refuses removing the last factor of a
 * user in a sector that requires MFA; that error shows in the dialog. Adding factors is the
 * user's own business (it needs their device), so it is not offered here.
 */
export function UserFactors({ sub, who }: { sub: string; who: string }) {
  const { t } = useTranslation('users');
  const toast = useToast();
  const queryClient = useQueryClient();
  const withStepUp = useStepUp();
  const otp = useQuery({ queryKey: ['user-otp', sub], queryFn: () => accountApi.factors(sub) });
  const passkeys = useQuery({ queryKey: ['user-passkeys', sub], queryFn: () => accountApi.passkeys(sub) });

  const removingOtp = useConfirmedRemoval(
    (r: OtpRegistration) => withStepUp(() => accountApi.deleteFactor(sub, r.registrationID)),
    (_res, r) => {
      toast(t('factors.removed', { factor: factorName(r.type), who }));
      void queryClient.invalidateQueries({ queryKey: ['user-otp', sub] });
    },
  );
  const removingPasskey = useConfirmedRemoval(
    (p: Passkey) => withStepUp(() => accountApi.deletePasskey(sub, p.id)),
    (_res, p) => {
      toast(t('factors.passkeyRemoved', { name: p.keyName || t('factors.unnamedLower'), who }));
      void queryClient.invalidateQueries({ queryKey: ['user-passkeys', sub] });
    },
  );
  const askOtp = removingOtp.ask;
  const askPasskey = removingPasskey.ask;

  const otpColumns = useMemo<Array<ColumnDef<OtpRegistration>>>(
    () => [
      { id: 'type', header: t('factors.kindHeader'), cell: ({ row }) => factorName(row.original.type) },
      { id: 'destination', header: t('factors.sentTo'), cell: ({ row }) => <span className="wrap-anywhere">{row.original.destination || '—'}</span> },
      {
        id: 'verified',
        header: t('factors.state'),
        cell: ({ row }) => (row.original.verified ? <span className="badge badge-ok">{t('page.verified')}</span> : <span className="badge">{t('factors.notYet')}</span>),
      },
      {
        id: 'actions',
        header: t('list.actions'),
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => askOtp(row.original)} aria-label={t('factors.removeLabel', { factor: factorName(row.original.type), destination: row.original.destination }).trim()}>
              {t('factors.remove')}
            </Button>
          </span>
        ),
      },
    ],
    [askOtp, t],
  );
  const passkeyColumns = useMemo<Array<ColumnDef<Passkey>>>(
    () => [
      { id: 'name', header: t('list.name'), cell: ({ row }) => <span className="wrap-anywhere">{row.original.keyName || t('factors.unnamed')}</span> },
      { id: 'created', header: t('factors.added'), cell: ({ row }) => formatTime(row.original.createdAt) },
      { id: 'used', header: t('factors.lastUsed'), cell: ({ row }) => formatTime(row.original.lastUsedAt) },
      {
        id: 'state',
        header: t('factors.state'),
        cell: ({ row }) => (
          <span className="row-actions">
            {row.original.flagged ? <span className="badge badge-warn">{t('factors.flagged')}</span> : <span className="badge badge-ok">{t('factors.usable')}</span>}
            {row.original.backedUp ? <span className="badge">{t('factors.synced')}</span> : null}
          </span>
        ),
      },
      {
        id: 'actions',
        header: t('list.actions'),
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => askPasskey(row.original)} aria-label={t('factors.removePasskeyLabel', { name: row.original.keyName || t('factors.unnamed') })}>
              {t('factors.remove')}
            </Button>
          </span>
        ),
      },
    ],
    [askPasskey, t],
  );

  return (
    <Section title={t('factors.title')} id="user-factors">
      <DataTable
        caption={t('factors.otpCaption')}
        columns={otpColumns}
        data={otp.data?.registrations}
        loading={otp.isFetching}
        error={otp.error}
        emptyTitle={t('factors.noOtp')}
        getRowId={(r) => r.registrationID}
      />
      <DataTable
        caption={t('factors.passkeys')}
        columns={passkeyColumns}
        data={passkeys.data?.credentials}
        loading={passkeys.isFetching}
        error={passkeys.error}
        emptyTitle={t('factors.noPasskeys')}
        getRowId={(p) => p.id}
      />
      <ConfirmDialog title={t('factors.removeTitle', { who })} confirmLabel={t('factors.removeFactor')} danger {...removingOtp.dialog}>
        <p>
          {t('factors.removeBody', {
            factor: removingOtp.item ? `${factorName(removingOtp.item.type)}${removingOtp.item.destination ? ` (${removingOtp.item.destination})` : ''}` : t('factors.theFactor'),
          })}
        </p>
      </ConfirmDialog>
      <ConfirmDialog title={t('factors.removePasskeyTitle', { name: removingPasskey.item?.keyName || t('factors.unnamed') })} confirmLabel={t('factors.removePasskey')} danger {...removingPasskey.dialog}>
        <p>{t('factors.removePasskeyBody', { who })}</p>
      </ConfirmDialog>
    </Section>
  );
}
