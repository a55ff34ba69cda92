import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
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
      toast(`Sector ${s.name} created.`);
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
    <Section title="New sector" id="new-sector">
      <form aria-labelledby="new-sector-heading" onSubmit={handleSubmit((v) => create.mutate(v))} noValidate>
        <ErrorMessage error={create.error} title="The sector was not created." fields={FIELDS} />
        <div className="form-grid">
          <Field label="Sector name" required error={errors.name?.message}>
            {(p) => <TextInput {...p} required autoComplete="off" {...register('name', { required: 'Enter a name.' })} />}
          </Field>
          <Field label="Sector slug" required error={errors.slug?.message} hint="Lowercase letters, digits and -, 2 to 63 characters.">
            {(p) => <TextInput {...p} required autoComplete="off" spellCheck={false} {...register('slug', { required: 'Enter a slug.' })} />}
          </Field>
          <Field label="Domain" error={errors.domain?.message} hint="A lowercase host name, or empty.">
            {(p) => <TextInput {...p} autoComplete="off" spellCheck={false} {...register('domain')} />}
          </Field>
        </div>
        <Field label="Allowed origins" error={errors.allowedOrigins?.message} hint="Pages on these origins may call the API (CORS). One per line, scheme://host[:port].">
          {(p) => <TextArea {...p} rows={2} spellCheck={false} {...register('allowedOrigins')} />}
        </Field>
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create sector
          </Button>
          <Button onClick={onDone}>Cancel</Button>
        </div>
      </form>
    </Section>
  );
}

/** A sector's addresses for its users: sign-in and sign-up (and, for the default sector, the console), each with a copy button. */
function SectorAddresses({ sector, tenantSlug }: { sector: Sector; tenantSlug: string | undefined }) {
  if (!tenantSlug) return <span className="muted">…</span>;
  const origin = window.location.origin;
  const pages = [
    { label: 'Sign-in', page: '/account/sign-in' },
    { label: 'Sign-up', page: '/account/signup' },
    ...(sector.isDefault ? [{ label: 'Console', page: '/console' }] : []),
  ];
  return (
    <dl className="sector-addresses">
      {pages.map(({ label, page }) => {
        const url = sectorPageURL(origin, tenantSlug, sector.slug, sector.isDefault, page);
        return (
          <div key={label}>
            <dt>{label}</dt>
            <dd>
              <code className="wrap-anywhere">{url}</code> <CopyButton value={url} name={`Copy the ${label.toLowerCase()} address of ${sector.name}`} />
            </dd>
          </div>
        );
      })}
      <div>
        <dt>Sector id</dt>
        <dd>
          <code className="wrap-anywhere">{sector.sectorID}</code> <CopyButton value={sector.sectorID} name={`Copy the id of ${sector.name}`} />
        </dd>
      </div>
    </dl>
  );
}

export default function SectorsPage() {
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
      { id: 'name', header: 'Name', cell: ({ row }) => <>{row.original.name}{row.original.isDefault ? <span className="badge"> default</span> : null}</> },
      { id: 'slug', header: 'Slug', cell: ({ row }) => <code>{row.original.slug}</code> },
      { id: 'domain', header: 'Domain', cell: ({ row }) => row.original.domain || <span className="muted">none</span> },
      { id: 'addresses', header: 'Addresses', cell: ({ row }) => <SectorAddresses sector={row.original} tenantSlug={tenantSlug} /> },
      { id: 'origins', header: 'Allowed origins', cell: ({ row }) => (row.original.allowedOrigins.length ? row.original.allowedOrigins.join(', ') : <span className="muted">none</span>) },
      {
        id: 'actions',
        header: 'Manage',
        cell: ({ row }) => (
          <span className="row-actions">
            <Link to={sectorPath(row.original.sectorID, 'users')} aria-label={`Users of ${row.original.name}`}>Users</Link>
            <Link to={sectorPath(row.original.sectorID, 'settings')} aria-label={`Settings of ${row.original.name}`}>Settings</Link>
          </span>
        ),
      },
    ],
    [tenantSlug],
  );
  return (
    <Page title="Sectors" actions={creating ? null : <Button variant="primary" onClick={() => setCreating(true)}>New sector</Button>}>
      {creating ? <CreateSector onDone={() => setCreating(false)} /> : null}
      <div className="toolbar" role="search" aria-label="Sectors">
        <Field label="Search sectors" hint="Part of a name or domain.">
          {(p) => <TextInput {...p} type="search" value={search} onChange={(e) => { setSearch(e.target.value); setPage(1); }} />}
        </Field>
        <Field label="Exact domain">
          {(p) => <TextInput {...p} type="search" value={domain} onChange={(e) => { setDomain(e.target.value); setPage(1); }} />}
        </Field>
      </div>
      <DataTable
        caption="Sectors of this tenant"
        columns={columns}
        data={query.data?.sectors}
        loading={query.isFetching}
        error={query.error}
        emptyTitle={searchTerm || filterDomain ? 'No sector matches the search.' : 'No sectors yet.'}
        getRowId={(s) => s.sectorID}
        page={query.data?.currentPage ?? page}
        pageCount={query.data?.totalPages}
        totalCount={query.data?.totalCount}
        onPageChange={setPage}
      />
    </Page>
  );
}
