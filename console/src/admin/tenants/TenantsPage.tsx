import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
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
      { id: 'name', header: 'Name', cell: ({ row }) => <>{row.original.name}{row.original.isPlatform ? <span className="badge"> platform</span> : null}</> },
      { id: 'slug', header: 'Slug', cell: ({ row }) => <code>{row.original.slug}</code> },
      { id: 'sectors', header: 'Sectors', cell: ({ row }) => row.original.sectorCount },
      { id: 'created', header: 'Provisioned', cell: ({ row }) => new Date(row.original.createdAt).toLocaleDateString() },
      {
        id: 'actions',
        header: 'Manage',
        cell: ({ row }) => (
          <Button variant="link" onClick={() => onRead(row.original.tenantID)} aria-label={`Read ${row.original.slug}`}>
            Read
          </Button>
        ),
      },
    ],
    [onRead],
  );
  return (
    <Section title="All tenants" id="tenant-list">
      <div className="toolbar" role="search" aria-label="Tenants">
        <Field label="Search tenants" hint="Part of a slug or name.">
          {(p) => <TextInput {...p} type="search" value={search} onChange={(e) => { setSearch(e.target.value); setPage(1); }} />}
        </Field>
      </div>
      <DataTable
        caption="Tenants of the platform"
        columns={columns}
        data={query.data?.tenants}
        loading={query.isFetching}
        error={query.error}
        emptyTitle={searchTerm ? 'No tenant matches the search.' : 'No tenants yet.'}
        getRowId={(t) => t.tenantID}
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
    onSuccess: (t, v) => {
      reset();
      toast(`Tenant ${t.slug} provisioned.`);
      onProvisioned(t, v.adminEmail.trim());
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      for (const f of error.fieldViolations) {
        if (FIELDS.includes(f.field as keyof ProvisionForm)) setError(f.field as keyof ProvisionForm, { type: 'server', message: f.description });
      }
    },
  });
  return (
    <Section title="Provision a tenant" id="provision">
      <form aria-labelledby="provision-heading" onSubmit={handleSubmit((v) => provision.mutate(v))} noValidate>
        <ErrorMessage error={provision.error} title="The tenant was not provisioned." fields={FIELDS} />
        <div className="form-grid">
          <Field label="Name" required error={errors.name?.message} hint="1 to 200 characters.">
            {(p) => <TextInput {...p} required autoComplete="off" {...register('name', { required: 'Enter a name.', maxLength: { value: 200, message: 'At most 200 characters.' } })} />}
          </Field>
          <Field label="Slug" required error={errors.slug?.message} hint="Lowercase letters, digits and -, 2 to 63 characters; unique on the platform.">
            {(p) => (
              <TextInput
                {...p}
                required
                autoComplete="off"
                spellCheck={false}
                {...register('slug', {
                  required: 'Enter a slug.',
                  validate: (v) => (SLUG.test(v.trim()) && v.trim().length >= 2) || 'Use 2 to 63 lowercase letters, digits and -, not starting or ending with -.',
                })}
              />
            )}
          </Field>
        </div>
        <fieldset>
          <legend>First admin (optional)</legend>
          <p className="hint">Give both or neither. Without them the tenant has no admin yet.</p>
          <div className="form-grid">
            <Field label="First admin email" error={errors.adminEmail?.message}>
              {(p) => <TextInput {...p} type="email" autoComplete="off" {...register('adminEmail')} />}
            </Field>
            <Field label="First admin password" error={errors.adminPassword?.message} hint="At least 8 characters, at most 72 bytes.">
              {(p) => (
                <TextInput
                  {...p}
                  type="password"
                  autoComplete="new-password"
                  {...register('adminPassword', {
                    validate: (v, all) => (all.adminEmail.trim() === '' ? v === '' || 'Give the email too, or leave both empty.' : v.length >= 8 || 'At least 8 characters.'),
                  })}
                />
              )}
            </Field>
          </div>
        </fieldset>
        <Button type="submit" variant="primary" busy={provision.isPending}>
          Provision
        </Button>
      </form>
    </Section>
  );
}

function TenantDetails({ data }: { data: GetTenantResponse }) {
  const headingId = useId();
  const t = data.tenant;
  return (
    <section className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>Tenant details: {t.slug}</h3>
      <dl className="facts">
        <dt>Tenant ID</dt>
        <dd><code>{t.tenantID}</code></dd>
        <dt>Platform tenant</dt>
        <dd>{t.isPlatform ? 'Yes' : 'No'}</dd>
        <dt>Default sector</dt>
        <dd><code>{t.rootSectorID}</code></dd>
        <dt>Signing key</dt>
        <dd><code>{t.kid}</code></dd>
        <dt>Sectors</dt>
        <dd>{t.sectorCount} ({t.subSectorCount} besides the default)</dd>
        <dt>Database</dt>
        <dd>
          {data.reachable ? (
            <span className="badge badge-ok">Reachable</span>
          ) : data.reachError ? (
            <span className="badge badge-warn">Unreachable: {data.reachError}</span>
          ) : (
            <span className="muted">Not checked (ask for a ping)</span>
          )}
        </dd>
      </dl>
      {data.stats ? (
        <>
          <h4>Statistics</h4>
          <dl className="facts">
            <dt>Users</dt>
            <dd data-testid="stat-userCount">{data.stats.userCount}</dd>
            <dt>Admins</dt>
            <dd data-testid="stat-adminCount">{data.stats.adminCount}</dd>
            <dt>Pending invitations</dt>
            <dd data-testid="stat-pendingInviteCount">{data.stats.pendingInviteCount}</dd>
            <dt>API tokens</dt>
            <dd data-testid="stat-apiTokenCount">{data.stats.apiTokenCount}</dd>
            <dt>MFA required (default sector)</dt>
            <dd>{data.stats.mfaRequired ? 'Yes' : 'No'}</dd>
            <dt>Self sign-up (default sector)</dt>
            <dd>{data.stats.selfSignupAllowed ? 'Yes' : 'No'}</dd>
            <dt>Passkeys configured</dt>
            <dd>{data.stats.webauthnConfigured ? 'Yes' : 'No'}</dd>
          </dl>
        </>
      ) : null}
      <h4>Sectors</h4>
      <ul>
        {data.sectors.map((s) => (
          <li key={s.sectorID}>
            {s.name} <span className="muted">({s.slug}{s.isDefault ? ', default' : ''})</span> <code>{s.sectorID}</code>
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
  const { register, handleSubmit, formState: { errors } } = useForm<ReadForm>({ values: { tenantID, ping: true, includeStats: true } });
  const read = useMutation({ mutationFn: (v: ReadForm) => tenantsApi.read(v.tenantID.trim(), { ping: v.ping, includeStats: v.includeStats }) });
  return (
    <Section title="Read a tenant" id="read-tenant">
      <form aria-labelledby="read-tenant-heading" onSubmit={handleSubmit((v) => { onTenantID(v.tenantID.trim()); read.mutate(v); })} noValidate>
        <div className="toolbar">
          <Field label="Tenant ID" error={errors.tenantID?.message}>
            {(p) => <TextInput {...p} autoComplete="off" spellCheck={false} {...register('tenantID', { validate: (v) => UUID.test(v.trim()) || 'Enter a tenant ID (a UUID).' })} />}
          </Field>
          <Checkbox label="Check the database (ping)" {...register('ping')} />
          <Checkbox label="Include statistics" {...register('includeStats')} />
          <Button type="submit" variant="primary" busy={read.isPending}>
            Read
          </Button>
        </div>
      </form>
      {read.isPending ? <Loading label="Reading the tenant…" /> : null}
      <ErrorMessage error={read.error} title="The tenant could not be read." />
      {read.data ? <TenantDetails data={read.data} /> : null}
    </Section>
  );
}

export default function TenantsPage() {
  const [latest, setLatest] = useState<(ProvisionTenantResponse & { adminEmail: string }) | undefined>();
  const consoleURL = latest ? sectorPageURL(window.location.origin, latest.slug, latest.sector.slug, true, '/console') : '';
  const [readID, setReadID] = useState('');
  const resultId = useId();
  const queryClient = useQueryClient();
  return (
    <Page title="Tenants">
      <ProvisionSection
        onProvisioned={(t, adminEmail) => {
          setLatest({ ...t, adminEmail });
          void queryClient.invalidateQueries({ queryKey: ['tenants'] });
        }}
      />
      {latest ? (
        <section className="secret-once" aria-labelledby={resultId}>
          <h2 id={resultId}>Tenant provisioned</h2>
          <dl className="facts">
            <dt>Tenant ID</dt>
            <dd><code data-testid="tenant-id">{latest.tenantID}</code></dd>
            <dt>Slug</dt>
            <dd>{latest.slug}</dd>
            <dt>Default sector ID</dt>
            <dd><code data-testid="root-sector-id">{latest.sector.sectorID}</code></dd>
            <dt>Signing key</dt>
            <dd><code>{latest.kid}</code></dd>
            <dt>First admin</dt>
            <dd>{latest.adminEmail || 'None yet'}</dd>
          </dl>
          <p className="hint">
            The first admin signs in to the tenant's console with the password you chose: it is not shown again. Console address:{' '}
            <code className="wrap-anywhere">{consoleURL}</code> <CopyButton value={consoleURL} name="Copy the tenant's console address" />
          </p>
          <Button onClick={() => setReadID(latest.tenantID)}>Read this tenant</Button>
        </section>
      ) : null}
      <TenantList onRead={setReadID} />
      <ReadSection tenantID={readID} onTenantID={setReadID} />
    </Page>
  );
}
