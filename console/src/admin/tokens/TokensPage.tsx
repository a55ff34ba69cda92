import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { ApiError } from '../../api/client';
import { Button, ConfirmDialog, CopyButton, DataTable, ErrorMessage, Field, Page, Section, TextInput, useConfirmedRemoval, useToast, type ColumnDef } from '../../ui';
import { tokensApi } from '../adminApi';
import { useSectorID } from '../sectorContext';
import { SectorLead } from '../SectorLead';
import type { ApiToken, CreateApiTokenResponse } from '../types';
import { formatTime } from '../util';

/**
 * The sector's API tokens: create (the plaintext is in the create answer only, so it
 * is shown once, here, with a copy button, and kept nowhere else), list (metadata
 * and prefix), revoke with confirmation.
 */

function NewTokenNotice({ created, onDismiss }: { created: CreateApiTokenResponse; onDismiss: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  return (
    <section className="secret-once" aria-labelledby="new-token-heading">
      <h2 id="new-token-heading" ref={headingRef} tabIndex={-1}>
        New API token
      </h2>
      <p>
        Copy the token <strong>{created.apiToken.name}</strong> now. It is shown only this once: the service keeps only a hash.
      </p>
      <code data-testid="token-value">{created.token}</code>
      <div className="form-actions">
        <CopyButton value={created.token} label="Copy the token" />
        <Button onClick={onDismiss}>Done, hide it</Button>
      </div>
    </section>
  );
}

export default function TokensPage() {
  const sectorID = useSectorID();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<CreateApiTokenResponse | null>(null);
  const tokens = useQuery({ queryKey: ['tokens', sectorID], queryFn: () => tokensApi.list(sectorID), enabled: !!sectorID });
  const { register, handleSubmit, reset, setError, formState: { errors } } = useForm<{ name: string }>({ defaultValues: { name: '' } });

  const create = useMutation({
    mutationFn: (name: string) => tokensApi.create(sectorID, name),
    onSuccess: (result) => {
      setCreated(result);
      reset();
      void queryClient.invalidateQueries({ queryKey: ['tokens', sectorID] });
    },
    onError: (error) => {
      const v = error instanceof ApiError ? error.violation('name') : undefined;
      if (v) setError('name', { type: 'server', message: v });
    },
  });
  const revoking = useConfirmedRemoval(
    (t: ApiToken) => tokensApi.revoke(sectorID, t.id),
    (_r, t) => {
      toast(`Token ${t.name} revoked.`);
      void queryClient.invalidateQueries({ queryKey: ['tokens', sectorID] });
    },
  );
  const askRevoke = revoking.ask;

  const columns = useMemo<Array<ColumnDef<ApiToken>>>(
    () => [
      { id: 'name', header: 'Name', cell: ({ row }) => row.original.name },
      { id: 'prefix', header: 'Starts with', cell: ({ row }) => <code>{row.original.prefix}…</code> },
      { id: 'createdAt', header: 'Created', cell: ({ row }) => formatTime(row.original.createdAt) },
      { id: 'lastUsedAt', header: 'Last used', cell: ({ row }) => formatTime(row.original.lastUsedAt) },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => (
          <Button variant="danger" onClick={() => askRevoke(row.original)} aria-label={`Revoke ${row.original.name}`}>
            Revoke
          </Button>
        ),
      },
    ],
    [askRevoke],
  );

  const scimURL = `${window.location.origin}/scim/v2/${sectorID}`;
  return (
    <Page title="API tokens">
      <SectorLead sectorID={sectorID} />
      <p className="page-lead">
        A token acts as a bounded admin of this sector for backend services: it manages non-admin users and settings, never admins, passwords, factors or other tokens.
      </p>
      <p className="page-lead">
        Provisioning from Entra ID, Okta or another SCIM 2.0 client uses one of these tokens as its secret token, with the tenant URL{' '}
        <code className="wrap-anywhere">{scimURL}</code> <CopyButton value={scimURL} name="Copy the SCIM tenant URL" />
      </p>
      {created && created.apiToken.sectorID === sectorID ? <NewTokenNotice created={created} onDismiss={() => setCreated(null)} /> : null}
      <Section title="Create a token" id="create-token">
        <form aria-labelledby="create-token-heading" noValidate onSubmit={handleSubmit((v) => create.mutate(v.name.trim()))}>
          <ErrorMessage error={create.error} title="The token was not created." fields={['name']} />
          <div className="toolbar">
            <Field label="Token name" error={errors.name?.message} hint="A label, 1 to 200 characters, e.g. the service that uses it.">
              {(p) => <TextInput {...p} autoComplete="off" {...register('name', { required: 'Enter a name.', maxLength: { value: 200, message: 'At most 200 characters.' } })} />}
            </Field>
            <Button type="submit" variant="primary" busy={create.isPending}>
              Create token
            </Button>
          </div>
        </form>
      </Section>
      <DataTable
        caption="API tokens of this sector"
        columns={columns}
        data={tokens.data?.apiTokens}
        loading={tokens.isFetching}
        error={tokens.error}
        emptyTitle="No API tokens yet."
        getRowId={(t) => t.id}
      />
      <ConfirmDialog
        title={`Revoke ${revoking.item?.name ?? 'this token'}?`}
        confirmLabel="Revoke token"
        danger
        {...revoking.dialog}
      >
        <p>Services using it are refused from their next request on. This cannot be undone.</p>
      </ConfirmDialog>
    </Page>
  );
}
