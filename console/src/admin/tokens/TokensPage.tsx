import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Trans, useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('tokens');
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  return (
    <section className="secret-once" aria-labelledby="new-token-heading">
      <h2 id="new-token-heading" ref={headingRef} tabIndex={-1}>
        {t('newTitle')}
      </h2>
      <p>
        <Trans t={t} i18nKey="copyNow" values={{ name: created.apiToken.name }} components={{ strong: <strong /> }} />
      </p>
      <code data-testid="token-value">{created.token}</code>
      <div className="form-actions">
        <CopyButton value={created.token} label={t('copy')} />
        <Button onClick={onDismiss}>{t('hide')}</Button>
      </div>
    </section>
  );
}

export default function TokensPage() {
  const { t } = useTranslation('tokens');
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
    (token: ApiToken) => tokensApi.revoke(sectorID, token.id),
    (_r, token) => {
      toast(t('revoked', { name: token.name }));
      void queryClient.invalidateQueries({ queryKey: ['tokens', sectorID] });
    },
  );
  const askRevoke = revoking.ask;

  const columns = useMemo<Array<ColumnDef<ApiToken>>>(
    () => [
      { id: 'name', header: t('name'), cell: ({ row }) => row.original.name },
      { id: 'prefix', header: t('prefix'), cell: ({ row }) => <code>{row.original.prefix}…</code> },
      { id: 'createdAt', header: t('created'), cell: ({ row }) => formatTime(row.original.createdAt) },
      { id: 'lastUsedAt', header: t('lastUsed'), cell: ({ row }) => formatTime(row.original.lastUsedAt) },
      {
        id: 'actions',
        header: t('actions'),
        cell: ({ row }) => (
          <Button variant="danger" onClick={() => askRevoke(row.original)} aria-label={t('revokeLabel', { name: row.original.name })}>
            {t('revoke')}
          </Button>
        ),
      },
    ],
    [askRevoke, t],
  );

  const scimURL = `${window.location.origin}/scim/v2/${sectorID}`;
  return (
    <Page title={t('title')}>
      <SectorLead sectorID={sectorID} />
      <p className="page-lead">
        {t('lead')}
      </p>
      <p className="page-lead">
        {t('scim')}{' '}
        <code className="wrap-anywhere">{scimURL}</code> <CopyButton value={scimURL} name={t('copyScim')} />
      </p>
      {created && created.apiToken.sectorID === sectorID ? <NewTokenNotice created={created} onDismiss={() => setCreated(null)} /> : null}
      <Section title={t('createTitle')} id="create-token">
        <form aria-labelledby="create-token-heading" noValidate onSubmit={handleSubmit((v) => create.mutate(v.name.trim()))}>
          <ErrorMessage error={create.error} title={t('failed')} fields={['name']} />
          <div className="toolbar">
            <Field label={t('tokenName')} error={errors.name?.message} hint={t('tokenNameHint')}>
              {(p) => <TextInput {...p} autoComplete="off" {...register('name', { required: t('nameNeeded'), maxLength: { value: 200, message: t('tooLong') } })} />}
            </Field>
            <Button type="submit" variant="primary" busy={create.isPending}>
              {t('create')}
            </Button>
          </div>
        </form>
      </Section>
      <DataTable
        caption={t('caption')}
        columns={columns}
        data={tokens.data?.apiTokens}
        loading={tokens.isFetching}
        error={tokens.error}
        emptyTitle={t('none')}
        getRowId={(t) => t.id}
      />
      <ConfirmDialog
        title={t('revokeTitle', { name: revoking.item?.name ?? t('thisToken') })}
        confirmLabel={t('revokeToken')}
        danger
        {...revoking.dialog}
      >
        <p>{t('revokeBody')}</p>
      </ConfirmDialog>
    </Page>
  );
}
