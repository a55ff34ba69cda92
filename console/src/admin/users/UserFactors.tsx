import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { accountApi, type OtpRegistration, type Passkey } from '../../account/accountApi';
import { useStepUp } from '../../account/StepUp';
import { Button, ConfirmDialog, DataTable, Section, useConfirmedRemoval, useToast, type ColumnDef } from '../../ui';
import { formatTime } from '../util';

const FACTOR_NAMES: Record<OtpRegistration['type'], string> = { email: 'Email code', sms: 'Text message code', totp: 'Authenticator app' };

/**
 * A user's second factors as an admin sees them: one-time-code registrations
 * (GET /users/{sub}/otp-registrations) and passkeys (GET /users/{sub}/webauthn-credentials),
 * each removable after a confirmation. The service refuses removing the last factor of a
 * user in a sector that requires MFA; that error shows in the dialog. Adding factors is the
 * user's own business (it needs their device), so it is not offered here.
 */
export function UserFactors({ sub, who }: { sub: string; who: string }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const withStepUp = useStepUp();
  const otp = useQuery({ queryKey: ['user-otp', sub], queryFn: () => accountApi.factors(sub) });
  const passkeys = useQuery({ queryKey: ['user-passkeys', sub], queryFn: () => accountApi.passkeys(sub) });

  const removingOtp = useConfirmedRemoval(
    (r: OtpRegistration) => withStepUp(() => accountApi.deleteFactor(sub, r.registrationID)),
    (_res, r) => {
      toast(`${FACTOR_NAMES[r.type]} factor of ${who} removed.`);
      void queryClient.invalidateQueries({ queryKey: ['user-otp', sub] });
    },
  );
  const removingPasskey = useConfirmedRemoval(
    (p: Passkey) => withStepUp(() => accountApi.deletePasskey(sub, p.id)),
    (_res, p) => {
      toast(`Passkey “${p.keyName || 'unnamed'}” of ${who} removed.`);
      void queryClient.invalidateQueries({ queryKey: ['user-passkeys', sub] });
    },
  );
  const askOtp = removingOtp.ask;
  const askPasskey = removingPasskey.ask;

  const otpColumns = useMemo<Array<ColumnDef<OtpRegistration>>>(
    () => [
      { id: 'type', header: 'Kind', cell: ({ row }) => FACTOR_NAMES[row.original.type] },
      { id: 'destination', header: 'Sent to', cell: ({ row }) => <span className="wrap-anywhere">{row.original.destination || '—'}</span> },
      {
        id: 'verified',
        header: 'State',
        cell: ({ row }) => (row.original.verified ? <span className="badge badge-ok">verified</span> : <span className="badge">not verified yet</span>),
      },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => askOtp(row.original)} aria-label={`Remove ${FACTOR_NAMES[row.original.type]} ${row.original.destination}`.trim()}>
              Remove
            </Button>
          </span>
        ),
      },
    ],
    [askOtp],
  );
  const passkeyColumns = useMemo<Array<ColumnDef<Passkey>>>(
    () => [
      { id: 'name', header: 'Name', cell: ({ row }) => <span className="wrap-anywhere">{row.original.keyName || 'Unnamed passkey'}</span> },
      { id: 'created', header: 'Added', cell: ({ row }) => formatTime(row.original.createdAt) },
      { id: 'used', header: 'Last used', cell: ({ row }) => formatTime(row.original.lastUsedAt) },
      {
        id: 'state',
        header: 'State',
        cell: ({ row }) => (
          <span className="row-actions">
            {row.original.flagged ? <span className="badge badge-warn">flagged: possibly cloned</span> : <span className="badge badge-ok">usable</span>}
            {row.original.backedUp ? <span className="badge">synced</span> : null}
          </span>
        ),
      },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => askPasskey(row.original)} aria-label={`Remove passkey ${row.original.keyName || 'Unnamed passkey'}`}>
              Remove
            </Button>
          </span>
        ),
      },
    ],
    [askPasskey],
  );

  return (
    <Section title="Sign-in factors" id="user-factors">
      <DataTable
        caption="One-time-code factors"
        columns={otpColumns}
        data={otp.data?.registrations}
        loading={otp.isFetching}
        error={otp.error}
        emptyTitle="No one-time-code factors."
        getRowId={(r) => r.registrationID}
      />
      <DataTable
        caption="Passkeys"
        columns={passkeyColumns}
        data={passkeys.data?.credentials}
        loading={passkeys.isFetching}
        error={passkeys.error}
        emptyTitle="No passkeys."
        getRowId={(p) => p.id}
      />
      <ConfirmDialog title={`Remove this factor of ${who}?`} confirmLabel="Remove factor" danger {...removingOtp.dialog}>
        <p>
          {removingOtp.item ? `${FACTOR_NAMES[removingOtp.item.type]}${removingOtp.item.destination ? ` (${removingOtp.item.destination})` : ''}` : 'The factor'} no longer signs
          them in. They can add it again from their account page.
        </p>
      </ConfirmDialog>
      <ConfirmDialog title={`Remove the passkey “${removingPasskey.item?.keyName || 'Unnamed passkey'}”?`} confirmLabel="Remove passkey" danger {...removingPasskey.dialog}>
        <p>{who} can no longer sign in with it. They can register a new one from their account page.</p>
      </ConfirmDialog>
    </Section>
  );
}
