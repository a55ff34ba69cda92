import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { sectorPageURL } from '../../auth/sectorAddress';
import { Button, Checkbox, CopyButton, DataTable, ErrorMessage, Field, Loading, Page, Section, TextInput, useToast, type ColumnDef } from '../../ui';
import { tenantsApi } from '../adminApi';
import type { GetTenantResponse, ProvisionTenantResponse, TenantListItem } from '../types';
import { useDebounced } from '../util';

/**
 * Platform admins: the platform's tenants (search and paging on the server),
 * provisioning one (optionally with its first admin), and reading one with
 * `ping` and `includeStats`.
 */

const PAGE_SIZE = 20;

function TenantList({ onRead }: { onRead: (tenantID: string) => void }) {
  const { t } = useTranslation('tenants');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const searchTerm = useDebounced(search.trim());
  const query = useQuery({
    queryKey: ['tenants', 'list', { searchTerm, page }],
    queryFn: () => tenantsApi.list({ page, pageSize: PAGE_SIZE, searchTerm }),
    placeholderData: keepPreviousData,
  });
  const columns = useMemo<Array<ColumnDef<TenantListItem>>>(
    () => [
      { id: 'name', header: t('name'), cell: ({ row }) => <>{row.original.name}{row.original.isPlatform ? <span className="badge"> {t('platform')}</span> : null}</> },
      { id: 'slug', header: t('slug'), cell: ({ row }) => <code>{row.original.slug}</code> },
      { id: 'sectors', header: t('sectors'), cell: ({ row }) => row.original.sectorCount },
      { id: 'created', header: t('provisioned'), cell: ({ row }) => new Date(row.original.createdAt).toLocaleDateString() },
      {
        id: 'actions',
        header: t('manage'),
        cell: ({ row }) => (
          <Button variant="link" onClick={() => onRead(row.original.tenantID)} aria-label={t('readLabel', { slug: row.original.slug })}>
            {t('read')}
          </Button>
        ),
      },
    ],
    [onRead, t],
  );
  return (
    <Section title={t('all')} id="tenant-list">
      <div className="toolbar" role="search" aria-label={t('title')}>
        <Field label={t('search')} hint={t('searchHint')}>
          {(p) => <TextInput {...p} type="search" value={search} onChange={(e) => { setSearch(e.target.value); setPage(1); }} />}
        </Field>
      </div>
      <DataTable
        caption={t('caption')}
        columns={columns}
        data={query.data?.tenants}
        loading={query.isFetching}
        error={query.error}
        emptyTitle={searchTerm ? t('noMatch') : t('none')}
        getRowId={(tenant) => tenant.tenantID}
        page={query.data?.currentPage ?? page}
        pageCount={query.data?.totalPages}
        totalCount={query.data?.totalCount}
        onPageChange={setPage}
      />
    </Section>
  );
}

interface ProvisionForm {
  name: string;
  slug: string;
  adminEmail: string;
  adminPassword: string;
}

const FIELDS: Array<keyof ProvisionForm> = ['name', 'slug', 'adminEmail', 'adminPassword'];
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function ProvisionSection({ onProvisioned }: { onProvisioned: (t: ProvisionTenantResponse, adminEmail: string) => void }) {
  const { t } = useTranslation('tenants');
  const toast = useToast();
  const { register, handleSubmit, setError, reset, formState: { errors } } = useForm<ProvisionForm>({
    defaultValues: { name: '', slug: '', adminEmail: '', adminPassword: '' },
  });
  const provision = useMutation({
    mutationFn: (v: ProvisionForm) =>
      tenantsApi.provision({
        name: v.name.trim(),
        slug: v.slug.trim(),
        ...(v.adminEmail.trim() ? { adminEmail: v.adminEmail.trim(), adminPassword: v.adminPassword } : {}),
      }),
    onSuccess: (tenant, v) => {
      reset();
      toast(t('provisionedToast', { slug: tenant.slug }));
      onProvisioned(tenant, v.adminEmail.trim());
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      for (const f of error.fieldViolations) {
        if (FIELDS.includes(f.field as keyof ProvisionForm)) setError(f.field as keyof ProvisionForm, { type: 'server', message: f.description });
      }
    },
  });
  return (
    <Section title={t('provisionTitle')} id="provision">
      <form aria-labelledby="provision-heading" onSubmit={handleSubmit((v) => provision.mutate(v))} noValidate>
        <ErrorMessage error={provision.error} title={t('provisionFailed')} fields={FIELDS} />
        <div className="form-grid">
          <Field label={t('name')} required error={errors.name?.message} hint={t('nameHint')}>
            {(p) => <TextInput {...p} required autoComplete="off" {...register('name', { required: t('nameNeeded'), maxLength: { value: 200, message: t('tooLong') } })} />}
          </Field>
          <Field label={t('slug')} required error={errors.slug?.message} hint={t('slugHint')}>
            {(p) => (
              <TextInput
                {...p}
                required
                autoComplete="off"
                spellCheck={false}
                {...register('slug', {
                  required: t('slugNeeded'),
                  validate: (v) => (SLUG.test(v.trim()) && v.trim().length >= 2) || t('slugInvalid'),
                })}
              />
            )}
          </Field>
        </div>
        <fieldset>
          <legend>{t('firstAdmin')}</legend>
          <p className="hint">{t('firstAdminHint')}</p>
          <div className="form-grid">
            <Field label={t('adminEmail')} error={errors.adminEmail?.message}>
              {(p) => <TextInput {...p} type="email" autoComplete="off" {...register('adminEmail')} />}
            </Field>
            <Field label={t('adminPassword')} error={errors.adminPassword?.message} hint={t('adminPasswordHint')}>
              {(p) => (
                <TextInput
                  {...p}
                  type="password"
                  autoComplete="new-password"
                  {...register('adminPassword', {
                    validate: (v, all) => (all.adminEmail.trim() === '' ? v === '' || t('bothOrNeither') : v.length >= 8 || t('tooShort')),
                  })}
                />
              )}
            </Field>
          </div>
        </fieldset>
        <Button type="submit" variant="primary" busy={provision.isPending}>
          {t('provision')}
        </Button>
      </form>
    </Section>
  );
}

function TenantDetails({ data }: { data: GetTenantResponse }) {
  const { t } = useTranslation('tenants');
  const headingId = useId();
  const tenant = data.tenant;
  const yesNo = (value: boolean) => (value ? t('yes') : t('no'));
  return (
    <section className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>{t('details', { slug: tenant.slug })}</h3>
      <dl className="facts">
        <dt>{t('tenantID')}</dt>
        <dd><code>{tenant.tenantID}</code></dd>
        <dt>{t('platformTenant')}</dt>
        <dd>{yesNo(tenant.isPlatform)}</dd>
        <dt>{t('defaultSector')}</dt>
        <dd><code>{tenant.rootSectorID}</code></dd>
        <dt>{t('signingKey')}</dt>
        <dd><code>{tenant.kid}</code></dd>
        <dt>{t('sectors')}</dt>
        <dd>{t('sectorCount', { n: tenant.sectorCount, besides: tenant.subSectorCount })}</dd>
        <dt>{t('database')}</dt>
        <dd>
          {data.reachable ? (
            <span className="badge badge-ok">{t('reachable')}</span>
          ) : data.reachError ? (
            <span className="badge badge-warn">{t('unreachable', { error: data.reachError })}</span>
          ) : (
            <span className="muted">{t('notChecked')}</span>
          )}
        </dd>
      </dl>
      {data.stats ? (
        <>
          <h4>{t('statistics')}</h4>
          <dl className="facts">
            <dt>{t('users')}</dt>
            <dd data-testid="stat-userCount">{data.stats.userCount}</dd>
            <dt>{t('admins')}</dt>
            <dd data-testid="stat-adminCount">{data.stats.adminCount}</dd>
            <dt>{t('pendingInvites')}</dt>
            <dd data-testid="stat-pendingInviteCount">{data.stats.pendingInviteCount}</dd>
            <dt>{t('apiTokens')}</dt>
            <dd data-testid="stat-apiTokenCount">{data.stats.apiTokenCount}</dd>
            <dt>{t('mfaRequired')}</dt>
            <dd>{yesNo(data.stats.mfaRequired)}</dd>
            <dt>{t('selfSignUp')}</dt>
            <dd>{yesNo(data.stats.selfSignupAllowed)}</dd>
            <dt>{t('passkeys')}</dt>
            <dd>{yesNo(data.stats.webauthnConfigured)}</dd>
          </dl>
        </>
      ) : null}
      <h4>{t('sectors')}</h4>
      <ul>
        {data.sectors.map((s) => (
          <li key={s.sectorID}>
            {s.name} <span className="muted">({s.slug}{s.isDefault ? t('defaultSuffix') : ''})</span> <code>{s.sectorID}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

interface ReadForm {
  tenantID: string;
  ping: boolean;
  includeStats: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function ReadSection({ tenantID, onTenantID }: { tenantID: string; onTenantID: (id: string) => void }) {
  const { t } = useTranslation('tenants');
  const { register, handleSubmit, formState: { errors } } = useForm<ReadForm>({ values: { tenantID, ping: true, includeStats: true } });
  const read = useMutation({ mutationFn: (v: ReadForm) => tenantsApi.read(v.tenantID.trim(), { ping: v.ping, includeStats: v.includeStats }) });
  return (
    <Section title={t('readTitle')} id="read-tenant">
      <form aria-labelledby="read-tenant-heading" onSubmit={handleSubmit((v) => { onTenantID(v.tenantID.trim()); read.mutate(v); })} noValidate>
        <div className="toolbar">
          <Field label={t('tenantID')} error={errors.tenantID?.message}>
            {(p) => <TextInput {...p} autoComplete="off" spellCheck={false} {...register('tenantID', { validate: (v) => UUID.test(v.trim()) || t('idNeeded') })} />}
          </Field>
          <Checkbox label={t('ping')} {...register('ping')} />
          <Checkbox label={t('includeStats')} {...register('includeStats')} />
          <Button type="submit" variant="primary" busy={read.isPending}>
            {t('read')}
          </Button>
        </div>
      </form>
      {read.isPending ? <Loading label={t('reading')} /> : null}
      <ErrorMessage error={read.error} title={t('readFailed')} />
      {read.data ? <TenantDetails data={read.data} /> : null}
    </Section>
  );
}

export default function TenantsPage() {
  const { t } = useTranslation('tenants');
  const [latest, setLatest] = useState<(ProvisionTenantResponse & { adminEmail: string }) | undefined>();
  const consoleURL = latest ? sectorPageURL(window.location.origin, latest.slug, latest.sector.slug, true, '/console') : '';
  const [readID, setReadID] = useState('');
  const resultId = useId();
  const queryClient = useQueryClient();
  return (
    <Page title={t('title')}>
      <ProvisionSection
        onProvisioned={(tenant, adminEmail) => {
          setLatest({ ...tenant, adminEmail });
          void queryClient.invalidateQueries({ queryKey: ['tenants'] });
        }}
      />
      {latest ? (
        <section className="secret-once" aria-labelledby={resultId}>
          <h2 id={resultId}>{t('provisionedTitle')}</h2>
          <dl className="facts">
            <dt>{t('tenantID')}</dt>
            <dd><code data-testid="tenant-id">{latest.tenantID}</code></dd>
            <dt>{t('slug')}</dt>
            <dd>{latest.slug}</dd>
            <dt>{t('defaultSectorID')}</dt>
            <dd><code data-testid="root-sector-id">{latest.sector.sectorID}</code></dd>
            <dt>{t('signingKey')}</dt>
            <dd><code>{latest.kid}</code></dd>
            <dt>{t('firstAdminShort')}</dt>
            <dd>{latest.adminEmail || t('noneYet')}</dd>
          </dl>
          <p className="hint">
            {t('consoleHint')}{' '}
            <code className="wrap-anywhere">{consoleURL}</code> <CopyButton value={consoleURL} name={t('copyConsole')} />
          </p>
          <Button onClick={() => setReadID(latest.tenantID)}>{t('readThis')}</Button>
        </section>
      ) : null}
      <TenantList onRead={setReadID} />
      <ReadSection tenantID={readID} onTenantID={setReadID} />
    </Page>
  );
}
