import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('oauth');
  return (
    <div role="status" className="notice stack" aria-label={t('test.result', { title })}>
      <p>
        <strong>{result.ok ? t('test.passed', { title }) : t('test.failed', { title })}</strong>
      </p>
      <ul className="item-list" aria-label={t('test.checks', { title })}>
        {result.checks.map((c) => (
          <li key={c.name} style={{ justifyContent: 'flex-start', flexWrap: 'nowrap' }}>
            <span className={c.ok ? 'badge badge-ok' : 'badge badge-warn'}>{c.ok ? t('test.ok') : t('test.checkFailed')}</span>
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

/** A provider's form; its title and intro are the oauth catalogue's `providers.<name>`. */
interface ProviderSpec {
  name: ProviderName;
  kinds: Kind[];
}

const PROVIDERS: ProviderSpec[] = [
  { name: 'oidc', kinds: ['oidc'] },
  { name: 'google', kinds: ['google'] },
  { name: 'github', kinds: ['github', 'github-app'] },
  { name: 'apple', kinds: ['apple'] },
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

function blankView(): OAuthProviderView {
  return { enabled: false, clientID: '', clientSecretSet: false, teamID: '', keyID: '', privateKeyPEMSet: false, redirectURI: '', issuerURL: '', appID: '' };
}

function ProviderForm({ sectorID, spec, view }: { sectorID: string; spec: ProviderSpec; view: OAuthProviderView }) {
  const { t } = useTranslation('oauth');
  const title = t(`providers.${spec.name}.title`);
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
      toast(t('saved', { title }));
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
    return stored ? t('secretStored') : t('secretNone');
  };
  return (
    <Section title={title} id={`provider-${spec.name}`}>
      <form aria-labelledby={headingId} noValidate onSubmit={handleSubmit((v) => { clearErrors(); save.mutate(v); })}>
        <p className="muted">{t(`providers.${spec.name}.intro`)}</p>
        <p className="actions">
          <span>
            {t('registerAt', { where: t(`providers.${spec.name}.where`) })} <code>{callback}</code>
          </span>
          <CopyButton value={callback} name={t('copyRedirect', { title })} />
        </p>
        <ErrorMessage error={save.error} title={t('notSaved', { title })} fields={shown} />
        {spec.kinds.length > 1 ? (
          <fieldset>
            <legend>{t('github.integration')}</legend>
            <div className="field-check">
              <input type="radio" id={`${spec.name}-kind-oauth`} name={`${spec.name}-kind`} checked={kind === 'github'} onChange={() => setKind('github')} />
              <label htmlFor={`${spec.name}-kind-oauth`}>{t('github.oauthApp')}</label>
            </div>
            <div className="field-check">
              <input type="radio" id={`${spec.name}-kind-app`} name={`${spec.name}-kind`} checked={kind === 'github-app'} onChange={() => setKind('github-app')} />
              <label htmlFor={`${spec.name}-kind-app`}>{t('github.app')}</label>
            </div>
          </fieldset>
        ) : null}
        <Checkbox label={t('enable', { title })} error={errors.enabled?.message} {...register('enabled')} />
        <div className="provider-grid">
          {fieldsOf(kind).map((key) => {
            const label = t('fieldLabel', { title, field: t(`fields.${key}`) });
            if (key === 'privateKeyPEM') {
              return (
                <Field key={key} label={label} hint={`${kind === 'apple' ? t('appleKey') : t('rsaKey')} ${secretState('privateKeyPEM')}`} error={errors.privateKeyPEM?.message}>
                  {(p) => <TextArea {...p} rows={3} autoComplete="off" spellCheck={false} placeholder={view.privateKeyPEMSet ? t('storedPlaceholder') : '-----BEGIN PRIVATE KEY-----'} {...register('privateKeyPEM')} />}
                </Field>
              );
            }
            if (key === 'clientSecret') {
              return (
                <Field key={key} label={label} hint={secretState('clientSecret')} error={errors.clientSecret?.message}>
                  {(p) => <TextInput {...p} type="password" autoComplete="new-password" placeholder={view.clientSecretSet ? t('storedPlaceholder') : ''} {...register('clientSecret')} />}
                </Field>
              );
            }
            const hint =
              key === 'redirectURI'
                ? t('redirectHint', { callback })
                : key === 'issuerURL'
                  ? t('issuerHint')
                  : key === 'clientID' && kind === 'apple'
                    ? t('servicesID')
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
            {t('save', { title })}
          </Button>
          <Button busy={test.isPending && test.variables === undefined} disabled={test.isPending} onClick={() => test.mutate(undefined)}>
            {t('testSaved', { title })}
          </Button>
          <Button busy={test.isPending && test.variables !== undefined} disabled={test.isPending} onClick={() => test.mutate(inputOf(getValues()))}>
            {t('testTyped')}
          </Button>
        </div>
        <ErrorMessage error={test.error} title={t('testFailed', { title })} />
        {test.data && !test.isPending ? <TestResult title={title} result={test.data} /> : null}
      </form>
    </Section>
  );
}

export default function OAuthPage() {
  const { t } = useTranslation('oauth');
  const sectorID = useSectorID();
  const providers = useQuery({ queryKey: ['oauth', sectorID], queryFn: () => oauthApi.read(sectorID), enabled: !!sectorID });
  return (
    <Page title={t('title')}>
      <SectorLead sectorID={sectorID} />
      {providers.isPending ? <Loading label={t('loading')} /> : null}
      <ErrorMessage error={providers.error} title={t('loadFailed')} />
      {providers.data
        ? PROVIDERS.map((spec) => (
            <ProviderForm key={`${sectorID}:${spec.name}`} sectorID={sectorID} spec={spec} view={providers.data.providers[spec.name] ?? blankView()} />
          ))
        : null}
    </Page>
  );
}
