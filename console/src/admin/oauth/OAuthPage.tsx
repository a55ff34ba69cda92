import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { api, ApiError, seg } from '../../api/client';
import type { Schemas } from '../../api/types';
import { Button, Checkbox, CopyButton, ErrorMessage, Field, Loading, Page, Section, TextArea, TextInput, useToast } from '../../ui';
import { oauthApi } from '../adminApi';
import { useSectorID } from '../sectorContext';
import { SectorLead } from '../SectorLead';
import type { OAuthProviderInput, OAuthProviderView, ProviderName } from '../types';

/**
 * Social-login providers of the sector, one form per provider type: a generic
 * OpenID provider, Google, GitHub (an OAuth App with a client secret, or a GitHub
 * App with its app ID and RSA key) and Apple. Secrets and keys are write-only: the
 * API only says whether one is stored, the form never shows one, and a blank
 * secret field keeps the stored value.
 *
 * Each provider can be tested (POST …/oauth/providers/{provider}/test): its saved
 * configuration, or the form as typed before saving; every check the service ran
 * is listed with what it found. The redirect URI to register at the provider is
 * this service's callback: the console is served by the service, so its origin
 * is the service's.
 */

type ProviderTestResult = Schemas['ProviderTestResponse'];

function testProvider(sectorID: string, name: ProviderName, input?: OAuthProviderInput): Promise<ProviderTestResult> {
  const path = `/api/v1/sectors/${seg(sectorID)}/oauth/providers/${seg(name)}/test`;
  return api.post<ProviderTestResult>(path, input ? { providers: { [name]: input } } : {});
}

/** The checks of a Test, announced when they arrive. */
function TestResult({ title, result }: { title: string; result: ProviderTestResult }) {
  return (
    <div role="status" className="notice stack" aria-label={`${title} test result`}>
      <p>
        <strong>{result.ok ? `${title}: every check passed.` : `${title}: a check failed.`}</strong>
      </p>
      <ul className="item-list" aria-label={`${title} checks`}>
        {result.checks.map((c) => (
          <li key={c.name} style={{ justifyContent: 'flex-start', flexWrap: 'nowrap' }}>
            <span className={c.ok ? 'badge badge-ok' : 'badge badge-warn'}>{c.ok ? 'ok' : 'failed'}</span>
            <span style={{ overflowWrap: 'anywhere' }}>
              <strong>{c.name}</strong>: {c.detail}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

type Kind = 'oidc' | 'google' | 'github' | 'github-app' | 'apple';

interface ProviderSpec {
  name: ProviderName;
  title: string;
  intro: string;
  kinds: Kind[];
}

const PROVIDERS: ProviderSpec[] = [
  { name: 'oidc', title: 'OpenID Connect provider', intro: 'Any provider with OpenID discovery (Keycloak, Okta, Entra ID, …).', kinds: ['oidc'] },
  { name: 'google', title: 'Google', intro: 'A Google Cloud OAuth client (web application).', kinds: ['google'] },
  { name: 'github', title: 'GitHub', intro: 'A GitHub OAuth App (client secret) or a GitHub App (app ID and private key).', kinds: ['github', 'github-app'] },
  { name: 'apple', title: 'Sign in with Apple', intro: 'A Services ID with a key of your team (the client secret is signed with it).', kinds: ['apple'] },
];

interface Values {
  enabled: boolean;
  clientID: string;
  clientSecret: string;
  redirectURI: string;
  issuerURL: string;
  teamID: string;
  keyID: string;
  privateKeyPEM: string;
  appID: string;
}

type Key = keyof Values;
const KEYS: Key[] = ['enabled', 'clientID', 'clientSecret', 'redirectURI', 'issuerURL', 'teamID', 'keyID', 'privateKeyPEM', 'appID'];

function fieldsOf(kind: Kind): Key[] {
  switch (kind) {
    case 'oidc':
      return ['issuerURL', 'clientID', 'clientSecret', 'redirectURI'];
    case 'google':
      return ['clientID', 'clientSecret', 'redirectURI'];
    case 'github':
      return ['clientID', 'clientSecret', 'redirectURI'];
    case 'github-app':
      return ['appID', 'clientID', 'privateKeyPEM', 'redirectURI'];
    case 'apple':
      return ['clientID', 'teamID', 'keyID', 'privateKeyPEM', 'redirectURI'];
  }
}

const LABELS: Record<Key, string> = {
  enabled: 'Enabled',
  clientID: 'Client ID',
  clientSecret: 'Client secret',
  redirectURI: 'Redirect URI',
  issuerURL: 'Issuer URL',
  teamID: 'Team ID',
  keyID: 'Key ID',
  privateKeyPEM: 'Private key (PEM)',
  appID: 'App ID',
};

function blankView(): OAuthProviderView {
  return { enabled: false, clientID: '', clientSecretSet: false, teamID: '', keyID: '', privateKeyPEMSet: false, redirectURI: '', issuerURL: '', appID: '' };
}

function ProviderForm({ sectorID, spec, view }: { sectorID: string; spec: ProviderSpec; view: OAuthProviderView }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<Kind>(spec.name === 'github' && view.appID ? 'github-app' : spec.kinds[0]);
  const callback = `${window.location.origin}/api/v1/oauth/${spec.name}/callback`;
  const { register, handleSubmit, getValues, setError, clearErrors, resetField, formState: { errors } } = useForm<Values>({
    defaultValues: { ...view, redirectURI: view.redirectURI || callback, clientSecret: '', privateKeyPEM: '' },
  });
  const inputOf = (v: Values): OAuthProviderInput => {
    const input: OAuthProviderInput = { enabled: v.enabled };
    for (const key of fieldsOf(kind)) {
      const value = v[key] as string;
      // Secrets: blank keeps the stored one, so a blank is never sent.
      if ((key === 'clientSecret' || key === 'privateKeyPEM') && value.trim() === '') continue;
      (input as Record<string, unknown>)[key] = value;
    }
    // An OAuth App has no app ID: clearing it makes the client secret count.
    if (kind === 'github' && view.appID) input.appID = '';
    return input;
  };
  const test = useMutation({ mutationFn: (input?: OAuthProviderInput) => testProvider(sectorID, spec.name, input) });
  const save = useMutation({
    mutationFn: (v: Values) => oauthApi.update(sectorID, { [spec.name]: inputOf(v) }),
    onSuccess: () => {
      toast(`${spec.title} saved.`);
      resetField('clientSecret', { defaultValue: '' });
      resetField('privateKeyPEM', { defaultValue: '' });
      void queryClient.invalidateQueries({ queryKey: ['oauth', sectorID] });
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      const prefix = `providers.${spec.name}.`;
      for (const f of error.fieldViolations) {
        const key = f.field.startsWith(prefix) ? (f.field.slice(prefix.length) as Key) : undefined;
        if (key && KEYS.includes(key)) setError(key, { type: 'server', message: f.description });
      }
    },
  });
  const headingId = `provider-${spec.name}-heading`;
  // The violations shown at this kind's inputs (the others stay in the error's list).
  const shown = (['enabled', ...fieldsOf(kind)] as Key[]).map((key) => `providers.${spec.name}.${key}`);
  const secretState = (key: 'clientSecret' | 'privateKeyPEM') => {
    const stored = key === 'clientSecret' ? view.clientSecretSet : view.privateKeyPEMSet;
    return stored ? 'One is stored (never shown). Leave blank to keep it; type a new one to replace it.' : 'None stored yet.';
  };
  return (
    <Section title={spec.title} id={`provider-${spec.name}`}>
      <form aria-labelledby={headingId} noValidate onSubmit={handleSubmit((v) => { clearErrors(); save.mutate(v); })}>
        <p className="muted">{spec.intro}</p>
        <p className="actions">
          <span>
            Redirect URI to register at {spec.name === 'oidc' ? 'the provider' : spec.name === 'apple' ? 'Apple' : spec.title}: <code>{callback}</code>
          </span>
          <CopyButton value={callback} name={`Copy the ${spec.title} redirect URI`} />
        </p>
        <ErrorMessage error={save.error} title={`${spec.title} was not saved.`} fields={shown} />
        {spec.kinds.length > 1 ? (
          <fieldset>
            <legend>GitHub integration</legend>
            <div className="field-check">
              <input type="radio" id={`${spec.name}-kind-oauth`} name={`${spec.name}-kind`} checked={kind === 'github'} onChange={() => setKind('github')} />
              <label htmlFor={`${spec.name}-kind-oauth`}>OAuth App (client secret)</label>
            </div>
            <div className="field-check">
              <input type="radio" id={`${spec.name}-kind-app`} name={`${spec.name}-kind`} checked={kind === 'github-app'} onChange={() => setKind('github-app')} />
              <label htmlFor={`${spec.name}-kind-app`}>GitHub App (app ID and private key)</label>
            </div>
          </fieldset>
        ) : null}
        <Checkbox label={`Enable ${spec.title}`} error={errors.enabled?.message} {...register('enabled')} />
        <div className="provider-grid">
          {fieldsOf(kind).map((key) => {
            const label = `${spec.title}: ${LABELS[key]}`;
            if (key === 'privateKeyPEM') {
              return (
                <Field key={key} label={label} hint={`${kind === 'apple' ? 'The EC P-256 key (.p8).' : 'The app’s RSA key.'} ${secretState('privateKeyPEM')}`} error={errors.privateKeyPEM?.message}>
                  {(p) => <TextArea {...p} rows={3} autoComplete="off" spellCheck={false} placeholder={view.privateKeyPEMSet ? '(stored; leave blank to keep)' : '-----BEGIN PRIVATE KEY-----'} {...register('privateKeyPEM')} />}
                </Field>
              );
            }
            if (key === 'clientSecret') {
              return (
                <Field key={key} label={label} hint={secretState('clientSecret')} error={errors.clientSecret?.message}>
                  {(p) => <TextInput {...p} type="password" autoComplete="new-password" placeholder={view.clientSecretSet ? '(stored; leave blank to keep)' : ''} {...register('clientSecret')} />}
                </Field>
              );
            }
            const hint =
              key === 'redirectURI'
                ? `Register this at the provider: ${callback}`
                : key === 'issuerURL'
                  ? 'https://… (discovery at /.well-known/openid-configuration; its endpoints must be on the same host).'
                  : key === 'clientID' && kind === 'apple'
                    ? 'The Services ID.'
                    : undefined;
            return (
              <Field key={key} label={label} hint={hint} error={errors[key]?.message}>
                {(p) => <TextInput {...p} type={key === 'redirectURI' || key === 'issuerURL' ? 'url' : 'text'} autoComplete="off" spellCheck={false} {...register(key)} />}
              </Field>
            );
          })}
        </div>
        <div className="actions">
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save {spec.title}
          </Button>
          <Button busy={test.isPending && test.variables === undefined} disabled={test.isPending} onClick={() => test.mutate(undefined)}>
            Test {spec.title}
          </Button>
          <Button busy={test.isPending && test.variables !== undefined} disabled={test.isPending} onClick={() => test.mutate(inputOf(getValues()))}>
            Test before saving
          </Button>
        </div>
        <ErrorMessage error={test.error} title={`${spec.title} could not be tested.`} />
        {test.data && !test.isPending ? <TestResult title={spec.title} result={test.data} /> : null}
      </form>
    </Section>
  );
}

export default function OAuthPage() {
  const sectorID = useSectorID();
  const providers = useQuery({ queryKey: ['oauth', sectorID], queryFn: () => oauthApi.read(sectorID), enabled: !!sectorID });
  return (
    <Page title="Social login">
      <SectorLead sectorID={sectorID} />
      {providers.isPending ? <Loading label="Loading the providers…" /> : null}
      <ErrorMessage error={providers.error} title="The providers could not be loaded." />
      {providers.data
        ? PROVIDERS.map((spec) => (
            <ProviderForm key={`${sectorID}:${spec.name}`} sectorID={sectorID} spec={spec} view={providers.data.providers[spec.name] ?? blankView()} />
          ))
        : null}
    </Page>
  );
}
