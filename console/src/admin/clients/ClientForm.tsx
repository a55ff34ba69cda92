import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { Button, Checkbox, ErrorMessage, Field, Loading, Section, Select, TextArea, TextInput, useToast } from '../../ui';
import { i18n } from '../../i18n';
import { oidcClientsApi } from '../adminApi';
import type { CreateOidcClientResponse, OidcAuthMethod, OidcClient, OidcClientInput, OidcGrantType } from '../types';
import { formatDateTime } from '../util';

/**
 * The settings of an app of the sector's OpenID Provider, as the API takes them
 * (OidcClientInput): creating one, or replacing all of them (PUT is a full
 * replacement, so the form always sends every field). The provider's own client
 * rules answer as field violations, shown beside their fields.
 */

/** The grant types offered, each named by the clients catalogue's `grants.<key>` (label and hint). */
const GRANTS: Array<{ value: OidcGrantType; key: string }> = [
  { value: 'authorization_code', key: 'authorizationCode' },
  { value: 'refresh_token', key: 'refreshToken' },
  { value: 'client_credentials', key: 'clientCredentials' },
  { value: 'urn:ietf:params:oauth:grant-type:device_code', key: 'deviceCode' },
];

/** The authentication methods offered, named by the clients catalogue's `methods.<value>` (label and hint). */
const AUTH_METHODS: OidcAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'];

export const grantLabel = (g: string): string => {
  const grant = GRANTS.find((x) => x.value === g);
  return grant ? i18n.t(`clients:grants.${grant.key}.label`) : g;
};
export const authMethodLabel = (m: string): string => (AUTH_METHODS.includes(m as OidcAuthMethod) ? i18n.t(`clients:methods.${m}.label`) : m);
/** Whether an app authenticates with a client secret (the only ones with one to rotate). */
export const usesSecret = (m: string): boolean => m === 'client_secret_basic' || m === 'client_secret_post';

interface Values {
  clientName: string;
  redirectURIs: string;
  postLogoutRedirectURIs: string;
  grantTypes: OidcGrantType[];
  tokenEndpointAuthMethod: OidcAuthMethod;
  jwksURI: string;
  backchannelLogoutURI: string;
  firstParty: boolean;
  logoURI: string;
  clientURI: string;
  policyURI: string;
  tosURI: string;
}

/** The app's public links: optional https URLs shown to its users on the sign-in, consent and account pages. */
const LINKS = [{ name: 'logoURI' }, { name: 'clientURI' }, { name: 'policyURI' }, { name: 'tosURI' }] as const;

const FIELDS: Array<keyof Values> = [
  'clientName',
  'redirectURIs',
  'postLogoutRedirectURIs',
  'grantTypes',
  'tokenEndpointAuthMethod',
  'jwksURI',
  'backchannelLogoutURI',
  'firstParty',
  'logoURI',
  'clientURI',
  'policyURI',
  'tosURI',
];

function toValues(c?: OidcClient): Values {
  return {
    clientName: c?.clientName ?? '',
    redirectURIs: c?.redirectURIs.join('\n') ?? '',
    postLogoutRedirectURIs: c?.postLogoutRedirectURIs.join('\n') ?? '',
    grantTypes: c ? [...c.grantTypes] : ['authorization_code', 'refresh_token'],
    tokenEndpointAuthMethod: c?.tokenEndpointAuthMethod ?? 'client_secret_basic',
    jwksURI: c?.jwksURI ?? '',
    backchannelLogoutURI: c?.backchannelLogoutURI ?? '',
    // An admin's new app is the sector's own unless told otherwise (the API's default too).
    firstParty: c?.firstParty ?? true,
    logoURI: c?.logoURI ?? '',
    clientURI: c?.clientURI ?? '',
    policyURI: c?.policyURI ?? '',
    tosURI: c?.tosURI ?? '',
  };
}

/** One URL per line (blank lines and surrounding spaces dropped). */
const lines = (text: string): string[] => text.split(/\s+/).filter(Boolean);

function toInput(v: Values, showJwks: boolean): OidcClientInput {
  const jwksURI = showJwks ? v.jwksURI.trim() : '';
  const backchannelLogoutURI = v.backchannelLogoutURI.trim();
  // A PUT replaces the app: links left empty are removed, the others sent.
  const links = Object.fromEntries(LINKS.map(({ name }) => [name, v[name].trim()]).filter(([, value]) => value !== ''));
  return {
    ...links,
    clientName: v.clientName.trim(),
    redirectURIs: lines(v.redirectURIs),
    postLogoutRedirectURIs: lines(v.postLogoutRedirectURIs),
    grantTypes: v.grantTypes,
    tokenEndpointAuthMethod: v.tokenEndpointAuthMethod,
    firstParty: v.firstParty,
    ...(jwksURI ? { jwksURI } : {}),
    ...(backchannelLogoutURI ? { backchannelLogoutURI } : {}),
  };
}

function fieldOf(field: string): keyof Values | undefined {
  return FIELDS.find((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`));
}

interface EditorProps {
  sectorID: string;
  /** The app to edit; absent: a new one. */
  client?: OidcClient;
  onCreated?: (created: CreateOidcClientResponse) => void;
  onDone: () => void;
}

function Editor({ sectorID, client, onCreated, onDone }: EditorProps) {
  const { t } = useTranslation('clients');
  const toast = useToast();
  const queryClient = useQueryClient();
  const id = useId();
  const headingId = client ? 'edit-app-heading' : 'new-app-heading';
  const { register, handleSubmit, setError, clearErrors, setFocus, control, formState: { errors } } = useForm<Values>({ defaultValues: toValues(client) });
  const method = useWatch({ control, name: 'tokenEndpointAuthMethod' });
  // The JWK Set URL is for private_key_jwt; an app that already has one keeps the field, so an edit never drops it unseen.
  const showJwks = method === 'private_key_jwt' || !!client?.jwksURI;

  useEffect(() => setFocus('clientName'), [setFocus]);

  const save = useMutation({
    mutationFn: async (v: Values) => {
      const input = toInput(v, showJwks);
      if (client) return { updated: await oidcClientsApi.update(sectorID, client.clientID, input) };
      return { created: await oidcClientsApi.create(sectorID, input) };
    },
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: ['oidc-clients', sectorID] });
      if (result.updated) {
        toast(t('form.saved', { name: result.updated.clientName }));
        void queryClient.invalidateQueries({ queryKey: ['oidc-client', sectorID, result.updated.clientID] });
        onDone();
      }
      if (result.created) onCreated?.(result.created);
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      for (const f of error.fieldViolations) {
        const key = fieldOf(f.field);
        if (key) setError(key, { type: 'server', message: f.description });
      }
    },
  });

  const methodHint = AUTH_METHODS.includes(method) ? t(`methods.${method}.hint`) : '';
  const secretChange = client && usesSecret(method) !== usesSecret(client.tokenEndpointAuthMethod)
    ? usesSecret(method)
      ? t('form.secretMade')
      : t('form.secretDeleted')
    : '';
  const grantsHintId = `${id}-grants-hint`;
  const grantsErrorId = `${id}-grants-error`;

  return (
    <form aria-labelledby={headingId} noValidate onSubmit={handleSubmit((v) => { clearErrors(); save.mutate(v); })}>
      <ErrorMessage error={save.error} title={client ? t('form.notSaved') : t('form.notCreated')} fields={showJwks ? FIELDS : FIELDS.filter((k) => k !== 'jwksURI')} />
      {client ? (
        <p className="muted">
          {t('clientID')} <code>{client.clientID}</code> ·{' '}
          {t(client.firstParty ? 'form.firstPartyFacts' : 'form.thirdPartyFacts', { created: formatDateTime(client.createdAt), updated: formatDateTime(client.updatedAt) })}
        </p>
      ) : null}
      <Field label={t('form.appName')} required error={errors.clientName?.message} hint={t('form.appNameHint')}>
        {(p) => (
          <TextInput
            {...p}
            required
            autoComplete="off"
            {...register('clientName', { validate: (v) => v.trim() !== '' || t('form.nameNeeded'), maxLength: { value: 200, message: t('form.tooLong') } })}
          />
        )}
      </Field>
      <Field
        label={t('redirectURIs')}
        error={errors.redirectURIs?.message}
        hint={t('form.redirectHint')}
      >
        {(p) => <TextArea {...p} rows={3} spellCheck={false} autoComplete="off" {...register('redirectURIs')} />}
      </Field>
      <fieldset className={errors.grantTypes ? 'fieldset-invalid' : undefined} aria-describedby={[grantsHintId, errors.grantTypes ? grantsErrorId : ''].filter(Boolean).join(' ')}>
        <legend>{t('form.grantTypes')}</legend>
        <p className="hint" id={grantsHintId}>{t('form.grantTypesHint')}</p>
        {GRANTS.map((g) => (
          <Checkbox
            key={g.value}
            label={t(`grants.${g.key}.label`)}
            hint={t(`grants.${g.key}.hint`)}
            value={g.value}
            {...register('grantTypes', { validate: (v) => v.length > 0 || t('form.grantNeeded') })}
          />
        ))}
        {errors.grantTypes ? <p className="field-error" id={grantsErrorId}>{errors.grantTypes.message}</p> : null}
      </fieldset>
      <div className="form-grid">
        <Field label={t('form.method')} error={errors.tokenEndpointAuthMethod?.message} hint={`${methodHint}${secretChange}`}>
          {(p) => <Select {...p} options={AUTH_METHODS.map((m) => ({ value: m, label: t(`methods.${m}.label`) }))} {...register('tokenEndpointAuthMethod')} />}
        </Field>
        {showJwks ? (
          <Field label={t('form.jwks')} error={errors.jwksURI?.message} hint={t('form.jwksHint')}>
            {(p) => <TextInput {...p} type="url" autoComplete="off" spellCheck={false} {...register('jwksURI')} />}
          </Field>
        ) : null}
      </div>
      <Checkbox
        label={t('form.firstParty')}
        hint={t('form.firstPartyHint')}
        error={errors.firstParty?.message}
        {...register('firstParty')}
      />
      <Field
        label={t('form.postLogout')}
        error={errors.postLogoutRedirectURIs?.message}
        hint={t('form.postLogoutHint')}
      >
        {(p) => <TextArea {...p} rows={2} spellCheck={false} autoComplete="off" {...register('postLogoutRedirectURIs')} />}
      </Field>
      <Field
        label={t('form.backchannel')}
        error={errors.backchannelLogoutURI?.message}
        hint={t('form.backchannelHint')}
      >
        {(p) => <TextInput {...p} type="url" autoComplete="off" spellCheck={false} {...register('backchannelLogoutURI')} />}
      </Field>
      {LINKS.map(({ name }) => (
        <Field key={name} label={t(`links.${name}.label`)} error={errors[name]?.message} hint={t('form.optional', { hint: t(`links.${name}.hint`) })}>
          {(p) => <TextInput {...p} type="url" autoComplete="off" spellCheck={false} {...register(name)} />}
        </Field>
      ))}
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {client ? t('form.save') : t('form.create')}
        </Button>
        <Button onClick={onDone}>{t('form.cancel')}</Button>
      </div>
    </form>
  );
}

/** Registers a new app; the answer (its client ID and, for a confidential app, its secret) goes to `onCreated`. */
export function CreateClientForm({ sectorID, onCreated, onDone }: { sectorID: string; onCreated: (created: CreateOidcClientResponse) => void; onDone: () => void }) {
  const { t } = useTranslation('clients');
  return (
    <Section title={t('new')} id="new-app">
      <Editor sectorID={sectorID} onCreated={onCreated} onDone={onDone} />
    </Section>
  );
}

/** Edits an app (read fresh from the API, then PUT in full). */
export function EditClientForm({ sectorID, clientID, name, onDone }: { sectorID: string; clientID: string; name: string; onDone: () => void }) {
  const { t } = useTranslation('clients');
  const client = useQuery({ queryKey: ['oidc-client', sectorID, clientID], queryFn: () => oidcClientsApi.read(sectorID, clientID) });
  return (
    <Section title={t('editLabel', { name: client.data?.clientName ?? name })} id="edit-app">
      {client.isPending ? <Loading label={t('form.loading')} /> : null}
      <ErrorMessage error={client.error} title={t('form.loadFailed')} />
      {client.data ? <Editor key={`${clientID}:${client.dataUpdatedAt}`} sectorID={sectorID} client={client.data} onDone={onDone} /> : null}
    </Section>
  );
}
