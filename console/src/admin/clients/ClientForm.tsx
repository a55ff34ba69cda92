import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { ApiError } from '../../api/client';
import { Button, Checkbox, ErrorMessage, Field, Loading, Section, Select, TextArea, TextInput, useToast } from '../../ui';
import { oidcClientsApi } from '../adminApi';
import type { CreateOidcClientResponse, OidcAuthMethod, OidcClient, OidcClientInput, OidcGrantType } from '../types';
import { formatDateTime } from '../util';

/**
 * The settings of an app of the sector's OpenID Provider, as the API takes them
 * (OidcClientInput): creating one, or replacing all of them (PUT is a full
 * replacement, so the form always sends every field). The provider's own client
 * rules answer as field violations, shown beside their fields.
 */

const GRANTS: Array<{ value: OidcGrantType; label: string; hint: string }> = [
  { value: 'authorization_code', label: 'Authorization code', hint: 'Signs users in through the browser (needs a redirect URI).' },
  { value: 'refresh_token', label: 'Refresh token', hint: 'Keeps users signed in without asking again.' },
  { value: 'client_credentials', label: 'Client credentials', hint: 'Tokens for the app itself (a backend service, no user).' },
  { value: 'urn:ietf:params:oauth:grant-type:device_code', label: 'Device code', hint: 'Sign-in on devices without a browser (TVs, command-line tools).' },
];

const AUTH_METHODS: Array<{ value: OidcAuthMethod; label: string; hint: string }> = [
  { value: 'client_secret_basic', label: 'Client secret (HTTP Basic)', hint: 'A confidential app (a server): it sends its client secret in the Authorization header.' },
  { value: 'client_secret_post', label: 'Client secret (form body)', hint: 'A confidential app that sends its client secret in the request body.' },
  { value: 'none', label: 'None: public app (PKCE)', hint: 'A browser or mobile app that cannot keep a secret: no client secret; PKCE protects its codes.' },
  { value: 'private_key_jwt', label: 'Private key JWT', hint: 'The app signs a JWT with its own key; the provider reads the public key from its JWK Set URL.' },
];

export const grantLabel = (g: string): string => GRANTS.find((x) => x.value === g)?.label ?? g;
export const authMethodLabel = (m: string): string => AUTH_METHODS.find((x) => x.value === m)?.label ?? m;
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
const LINKS = [
  { name: 'logoURI', label: 'Logo URL', hint: 'https://… an image shown beside the app’s name.' },
  { name: 'clientURI', label: 'Home page', hint: 'https://… the app’s own site.' },
  { name: 'policyURI', label: 'Privacy policy', hint: 'https://…' },
  { name: 'tosURI', label: 'Terms of service', hint: 'https://…' },
] as const;

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
        toast(`App ${result.updated.clientName} saved.`);
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

  const methodHint = AUTH_METHODS.find((m) => m.value === method)?.hint;
  const secretChange = client && usesSecret(method) !== usesSecret(client.tokenEndpointAuthMethod)
    ? usesSecret(method)
      ? ' Saving makes a client secret for it: rotate the secret afterwards to see it.'
      : ' Saving deletes its client secret.'
    : '';
  const grantsHintId = `${id}-grants-hint`;
  const grantsErrorId = `${id}-grants-error`;

  return (
    <form aria-labelledby={headingId} noValidate onSubmit={handleSubmit((v) => { clearErrors(); save.mutate(v); })}>
      <ErrorMessage error={save.error} title={client ? 'The app was not saved.' : 'The app was not created.'} fields={showJwks ? FIELDS : FIELDS.filter((k) => k !== 'jwksURI')} />
      {client ? (
        <p className="muted">
          Client ID <code>{client.clientID}</code> · {client.firstParty ? 'First-party' : 'Third-party'} app · created {formatDateTime(client.createdAt)} · updated{' '}
          {formatDateTime(client.updatedAt)}
        </p>
      ) : null}
      <Field label="App name" required error={errors.clientName?.message} hint="What users see on the sign-in page; 1 to 200 characters.">
        {(p) => (
          <TextInput
            {...p}
            required
            autoComplete="off"
            {...register('clientName', { validate: (v) => v.trim() !== '' || 'Enter a name.', maxLength: { value: 200, message: 'At most 200 characters.' } })}
          />
        )}
      </Field>
      <Field
        label="Redirect URIs"
        error={errors.redirectURIs?.message}
        hint="Where the provider sends users back after signing in, exact URLs, one per line (https; http only for loopback and native apps). Needed for the authorization code grant."
      >
        {(p) => <TextArea {...p} rows={3} spellCheck={false} autoComplete="off" {...register('redirectURIs')} />}
      </Field>
      <fieldset className={errors.grantTypes ? 'fieldset-invalid' : undefined} aria-describedby={[grantsHintId, errors.grantTypes ? grantsErrorId : ''].filter(Boolean).join(' ')}>
        <legend>Grant types</legend>
        <p className="hint" id={grantsHintId}>What the app may ask the token endpoint for.</p>
        {GRANTS.map((g) => (
          <Checkbox
            key={g.value}
            label={g.label}
            hint={g.hint}
            value={g.value}
            {...register('grantTypes', { validate: (v) => v.length > 0 || 'Choose at least one grant type.' })}
          />
        ))}
        {errors.grantTypes ? <p className="field-error" id={grantsErrorId}>{errors.grantTypes.message}</p> : null}
      </fieldset>
      <div className="form-grid">
        <Field label="Authentication method" error={errors.tokenEndpointAuthMethod?.message} hint={`${methodHint ?? ''}${secretChange}`}>
          {(p) => <Select {...p} options={AUTH_METHODS.map((m) => ({ value: m.value, label: m.label }))} {...register('tokenEndpointAuthMethod')} />}
        </Field>
        {showJwks ? (
          <Field label="JWK Set URL" error={errors.jwksURI?.message} hint="https://… where the app publishes its public keys (for private key JWT).">
            {(p) => <TextInput {...p} type="url" autoComplete="off" spellCheck={false} {...register('jwksURI')} />}
          </Field>
        ) : null}
      </div>
      <Checkbox
        label="First-party app (users are not asked for consent)"
        hint="Leave it checked for an app of your own organisation. A third-party app shows users what it asks for, once, and they allow or deny it."
        error={errors.firstParty?.message}
        {...register('firstParty')}
      />
      <Field
        label="Post-logout redirect URIs"
        error={errors.postLogoutRedirectURIs?.message}
        hint="Where the app may send users back to after signing out at the provider, one per line; may be empty."
      >
        {(p) => <TextArea {...p} rows={2} spellCheck={false} autoComplete="off" {...register('postLogoutRedirectURIs')} />}
      </Field>
      <Field
        label="Back-channel logout URI"
        error={errors.backchannelLogoutURI?.message}
        hint="Optional: where the provider posts a logout token when a user's session ends (https)."
      >
        {(p) => <TextInput {...p} type="url" autoComplete="off" spellCheck={false} {...register('backchannelLogoutURI')} />}
      </Field>
      {LINKS.map(({ name, label, hint }) => (
        <Field key={name} label={label} error={errors[name]?.message} hint={`Optional: ${hint}`}>
          {(p) => <TextInput {...p} type="url" autoComplete="off" spellCheck={false} {...register(name)} />}
        </Field>
      ))}
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {client ? 'Save app' : 'Create app'}
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}

/** Registers a new app; the answer (its client ID and, for a confidential app, its secret) goes to `onCreated`. */
export function CreateClientForm({ sectorID, onCreated, onDone }: { sectorID: string; onCreated: (created: CreateOidcClientResponse) => void; onDone: () => void }) {
  return (
    <Section title="New app" id="new-app">
      <Editor sectorID={sectorID} onCreated={onCreated} onDone={onDone} />
    </Section>
  );
}

/** Edits an app (read fresh from the API, then PUT in full). */
export function EditClientForm({ sectorID, clientID, name, onDone }: { sectorID: string; clientID: string; name: string; onDone: () => void }) {
  const client = useQuery({ queryKey: ['oidc-client', sectorID, clientID], queryFn: () => oidcClientsApi.read(sectorID, clientID) });
  return (
    <Section title={`Edit ${client.data?.clientName ?? name}`} id="edit-app">
      {client.isPending ? <Loading label="Loading the app…" /> : null}
      <ErrorMessage error={client.error} title="The app could not be loaded." />
      {client.data ? <Editor key={`${clientID}:${client.dataUpdatedAt}`} sectorID={sectorID} client={client.data} onDone={onDone} /> : null}
    </Section>
  );
}
