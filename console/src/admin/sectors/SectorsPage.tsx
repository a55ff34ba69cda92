import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { sectorPageURL } from '../../auth/sectorAddress';
import { Button, CopyButton, DataTable, ErrorMessage, Field, Page, Section, TextArea, TextInput, useToast, type ColumnDef } from '../../ui';
import { sectorsApi, tenantsApi } from '../adminApi';
import { sectorPath } from '../nav';
import type { Sector } from '../types';
import { useDebounced } from '../util';

/** Default-sector admins: the tenant's sectors (search, paging: server side) and creating one. */

const PAGE_SIZE = 20;

interface CreateForm {
  name: string;
  slug: string;
  domain: string;
  allowedOrigins: string;
}

const FIELDS: Array<keyof CreateForm> = ['name', 'slug', 'domain', 'allowedOrigins'];

function CreateSector({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation('sectors');
  const toast = useToast();
  const queryClient = useQueryClient();
  const { register, handleSubmit, setError, formState: { errors } } = useForm<CreateForm>({ defaultValues: { name: '', slug: '', domain: '', allowedOrigins: '' } });
  const create = useMutation({
    mutationFn: (v: CreateForm) =>
      sectorsApi.create({
        name: v.name.trim(),
        slug: v.slug.trim(),
        ...(v.domain.trim() ? { domain: v.domain.trim() } : {}),
        allowedOrigins: v.allowedOrigins.split(/[\s,]+/).filter(Boolean),
      }),
    onSuccess: (s) => {
      toast(t('created', { name: s.name }));
      void queryClient.invalidateQueries({ queryKey: ['sectors'] });
      onDone();
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      for (const f of error.fieldViolations) {
        const key = FIELDS.find((k) => f.field === k || f.field.startsWith(`${k}.`) || f.field.startsWith(`${k}[`));
        if (key) setError(key, { type: 'server', message: f.description });
      }
    },
  });
  return (
    <Section title={t('new')} id="new-sector">
      <form aria-labelledby="new-sector-heading" onSubmit={handleSubmit((v) => create.mutate(v))} noValidate>
        <ErrorMessage error={create.error} title={t('failed')} fields={FIELDS} />
        <div className="form-grid">
          <Field label={t('sectorName')} required error={errors.name?.message}>
            {(p) => <TextInput {...p} required autoComplete="off" {...register('name', { required: t('nameNeeded') })} />}
          </Field>
          <Field label={t('sectorSlug')} required error={errors.slug?.message} hint={t('slugHint')}>
            {(p) => <TextInput {...p} required autoComplete="off" spellCheck={false} {...register('slug', { required: t('slugNeeded') })} />}
          </Field>
          <Field label={t('domain')} error={errors.domain?.message} hint={t('domainHint')}>
            {(p) => <TextInput {...p} autoComplete="off" spellCheck={false} {...register('domain')} />}
          </Field>
        </div>
        <Field label={t('origins')} error={errors.allowedOrigins?.message} hint={t('originsHint')}>
          {(p) => <TextArea {...p} rows={2} spellCheck={false} {...register('allowedOrigins')} />}
        </Field>
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={create.isPending}>
            {t('create')}
          </Button>
          <Button onClick={onDone}>{t('cancel')}</Button>
        </div>
      </form>
    </Section>
  );
}

/** A sector's addresses for its users: sign-in and sign-up (and, for the default sector, the console), each with a copy button. */
function SectorAddresses({ sector, tenantSlug }: { sector: Sector; tenantSlug: string | undefined }) {
  const { t } = useTranslation('sectors');
  if (!tenantSlug) return <span className="muted">…</span>;
  const origin = window.location.origin;
  const pages = [
    { kind: 'signIn', page: '/account/sign-in' },
    { kind: 'signUp', page: '/account/signup' },
    ...(sector.isDefault ? [{ kind: 'console', page: '/console' }] : []),
  ];
  return (
    <dl className="sector-addresses">
      {pages.map(({ kind, page }) => {
        const url = sectorPageURL(origin, tenantSlug, sector.slug, sector.isDefault, page);
        return (
          <div key={kind}>
            <dt>{t(`address.${kind}`)}</dt>
            <dd>
              <code className="wrap-anywhere">{url}</code> <CopyButton value={url} name={t(`address.copy.${kind}`, { name: sector.name })} />
            </dd>
          </div>
        );
      })}
      <div>
        <dt>{t('address.id')}</dt>
        <dd>
          <code className="wrap-anywhere">{sector.sectorID}</code> <CopyButton value={sector.sectorID} name={t('address.copyId', { name: sector.name })} />
        </dd>
      </div>
    </dl>
  );
}

export default function SectorsPage() {
  const { t } = useTranslation('sectors');
  const { me } = useAuth();
  const tenant = useQuery({
    queryKey: ['tenant', me?.tenantID],
    queryFn: () => tenantsApi.read(me?.tenantID ?? '', { ping: false, includeStats: false }),
    enabled: Boolean(me?.tenantID),
    staleTime: 300_000,
  });
  const tenantSlug = tenant.data?.tenant?.slug;
  const [search, setSearch] = useState('');
  const [domain, setDomain] = useState('');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const searchTerm = useDebounced(search.trim());
  const filterDomain = useDebounced(domain.trim().toLowerCase());
  const query = useQuery({
    queryKey: ['sectors', 'list', { searchTerm, filterDomain, page }],
    queryFn: () => sectorsApi.list({ page, pageSize: PAGE_SIZE, searchTerm, filterDomain }),
    placeholderData: keepPreviousData,
  });
  const columns = useMemo<Array<ColumnDef<Sector>>>(
    () => [
      { id: 'name', header: t('name'), cell: ({ row }) => <>{row.original.name}{row.original.isDefault ? <span className="badge"> {t('default')}</span> : null}</> },
      { id: 'slug', header: t('slug'), cell: ({ row }) => <code>{row.original.slug}</code> },
      { id: 'domain', header: t('domain'), cell: ({ row }) => row.original.domain || <span className="muted">{t('none')}</span> },
      { id: 'addresses', header: t('addresses'), cell: ({ row }) => <SectorAddresses sector={row.original} tenantSlug={tenantSlug} /> },
      { id: 'origins', header: t('origins'), cell: ({ row }) => (row.original.allowedOrigins.length ? row.original.allowedOrigins.join(', ') : <span className="muted">{t('none')}</span>) },
      {
        id: 'actions',
        header: t('manage'),
        cell: ({ row }) => (
          <span className="row-actions">
            <Link to={sectorPath(row.original.sectorID, 'users')} aria-label={t('usersOf', { name: row.original.name })}>{t('admin:nav.users')}</Link>
            <Link to={sectorPath(row.original.sectorID, 'settings')} aria-label={t('settingsOf', { name: row.original.name })}>{t('admin:nav.settings')}</Link>
          </span>
        ),
      },
    ],
    [tenantSlug, t],
  );
  return (
    <Page title={t('title')} actions={creating ? null : <Button variant="primary" onClick={() => setCreating(true)}>{t('new')}</Button>}>
      {creating ? <CreateSector onDone={() => setCreating(false)} /> : null}
      <div className="toolbar" role="search" aria-label={t('title')}>
        <Field label={t('search')} hint={t('searchHint')}>
          {(p) => <TextInput {...p} type="search" value={search} onChange={(e) => { setSearch(e.target.value); setPage(1); }} />}
        </Field>
        <Field label={t('exactDomain')}>
          {(p) => <TextInput {...p} type="search" value={domain} onChange={(e) => { setDomain(e.target.value); setPage(1); }} />}
        </Field>
      </div>
      <DataTable
        caption={t('caption')}
        columns={columns}
        data={query.data?.sectors}
        loading={query.isFetching}
        error={query.error}
        emptyTitle={searchTerm || filterDomain ? t('noMatch') : t('noneYet')}
        getRowId={(s) => s.sectorID}
        page={query.data?.currentPage ?? page}
        pageCount={query.data?.totalPages}
        totalCount={query.data?.totalCount}
        onPageChange={setPage}
      />
    </Page>
  );
}
