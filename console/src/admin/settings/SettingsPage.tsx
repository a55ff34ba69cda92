import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useForm, useWatch, type UseFormRegister, type FieldErrors } from 'react-hook-form';
import { ApiError } from '../../api/client';
import { Button, Checkbox, EmptyState, ErrorMessage, Field, Loading, Page, Section, TextArea, TextInput, useToast } from '../../ui';
import { settingsApi } from '../adminApi';
import { useSectorID, useSectorRecord } from '../sectorContext';
import type { SectorSettings } from '../types';
import { INVITE_DEFAULTS, OTP_DEFAULTS, OTP_SMS_DEFAULT, PASSWORD_RESET_DEFAULTS, type TemplateSet } from './defaultTemplates';
import { ALL_SETTING_KEYS, GENERAL_GROUPS, SMS_MAX, SUBJECT_MAX, TEMPLATE_GROUPS, TEMPLATE_MAX, type FieldSpec, type SettingKey, type TemplateGroup } from './settingsFields';
import { HtmlPreview, sampleVars, TextPreview } from './TemplatePreview';

/** The form's values: every setting, origins as one per line. */
type FormValues = Record<SettingKey, string | boolean>;

const DEFAULTS: Record<TemplateGroup['kind'], TemplateSet> = { otp: OTP_DEFAULTS, invite: INVITE_DEFAULTS, passwordReset: PASSWORD_RESET_DEFAULTS };

function toForm(s: SectorSettings): FormValues {
  const out = {} as FormValues;
  for (const key of ALL_SETTING_KEYS) {
    const value = s[key];
    out[key] = Array.isArray(value) ? value.join('\n') : (value as string | boolean);
  }
  return out;
}

function fieldSpec(key: SettingKey): FieldSpec | undefined {
  for (const g of GENERAL_GROUPS) for (const f of g.fields) if (f.key === key) return f;
  return undefined;
}

/** The PUT body: only the fields the admin changed (PUT merges; absent fields keep their value). */
function toBody(values: FormValues, dirty: Partial<Record<SettingKey, unknown>>): Partial<SectorSettings> {
  const body: Record<string, unknown> = {};
  for (const key of ALL_SETTING_KEYS) {
    if (!dirty[key]) continue;
    const value = values[key];
    const spec = fieldSpec(key);
    if (spec?.kind === 'origins') {
      body[key] = String(value)
        .split(/[\s,]+/)
        .map((o) => o.trim())
        .filter(Boolean);
    } else if (spec?.kind === 'int64') body[key] = String(value).trim();
    else body[key] = value;
  }
  return body as Partial<SectorSettings>;
}

function SettingInput({ spec, register, errors, sectorID }: { spec: FieldSpec; register: UseFormRegister<FormValues>; errors: FieldErrors<FormValues>; sectorID: string }) {
  const error = errors[spec.key]?.message;
  if (spec.kind === 'boolean') return <Checkbox label={spec.label} hint={spec.help} error={error} {...register(spec.key)} />;
  if (spec.kind === 'origins') {
    return (
      <Field label={spec.label} hint={spec.help} error={error}>
        {(p) => <TextArea {...p} rows={3} spellCheck={false} autoComplete="off" {...register(spec.key)} />}
      </Field>
    );
  }
  if (spec.kind === 'int64') {
    return (
      <Field label={`${spec.label} (${spec.unit})`} hint={spec.help} error={error}>
        {(p) => (
          <TextInput
            {...p}
            inputMode="numeric"
            autoComplete="off"
            {...register(spec.key, { pattern: { value: /^\s*\d+\s*$/, message: `Enter a whole number of ${spec.unit}.` } })}
          />
        )}
      </Field>
    );
  }
  const hint =
    spec.key === 'MagicLinkURL' ? (
      <>
        {spec.help} To open them in this app’s account page, use <code>{`${window.location.origin}/account/link?sector=${sectorID}`}</code>.
      </>
    ) : (
      spec.help
    );
  return (
    <Field label={spec.label} hint={hint} error={error}>
      {(p) => <TextInput {...p} type={spec.type ?? 'text'} maxLength={spec.maxLength} autoComplete="off" spellCheck={false} {...register(spec.key)} />}
    </Field>
  );
}

function TemplateEditor({
  group,
  register,
  errors,
  values,
  sectorName,
}: {
  group: TemplateGroup;
  register: UseFormRegister<FormValues>;
  errors: FieldErrors<FormValues>;
  values: FormValues;
  sectorName: string;
}) {
  const defaults = DEFAULTS[group.kind];
  const vars = useMemo(() => sampleVars(sectorName), [sectorName]);
  const hint = (
    <>
      Handlebars placeholders: {group.variables.map((v) => `{{${v}}}`).join(', ')}. Leave empty for the built-in text.
    </>
  );
  const text = (key: SettingKey) => String(values[key] ?? '');
  const shortTitle = group.kind === 'otp' ? 'Code mail' : group.kind === 'invite' ? 'Invitation' : 'Password-reset';
  return (
    <Section title={group.title} id={`tpl-${group.kind}`}>
      <div className="template-grid">
        <div className="template-grid__inputs">
          <Field label={`${shortTitle} subject`} hint={hint} error={errors[group.subject]?.message}>
            {(p) => <TextInput {...p} maxLength={SUBJECT_MAX} spellCheck={false} placeholder={defaults.subject} {...register(group.subject)} />}
          </Field>
          <Field label={`${shortTitle} text body`} error={errors[group.text]?.message}>
            {(p) => <TextArea {...p} rows={6} maxLength={TEMPLATE_MAX} spellCheck={false} placeholder={defaults.text} {...register(group.text)} />}
          </Field>
          <Field label={`${shortTitle} HTML body`} hint="Values are HTML-escaped in this body." error={errors[group.html]?.message}>
            {(p) => <TextArea {...p} rows={6} maxLength={TEMPLATE_MAX} spellCheck={false} placeholder={defaults.html} {...register(group.html)} />}
          </Field>
          {group.sms ? (
            <Field label="SMS text" hint={`Up to ${SMS_MAX} characters.`} error={errors[group.sms]?.message}>
              {(p) => <TextArea {...p} rows={2} maxLength={SMS_MAX} spellCheck={false} placeholder={OTP_SMS_DEFAULT} {...register(group.sms!)} />}
            </Field>
          ) : null}
        </div>
        <div className="template-grid__preview" aria-label={`${group.title} preview`} role="group">
          <p className="template-preview__note">Live preview with sample values</p>
          <TextPreview testId={`preview-${group.kind}-subject`} label="Subject" template={text(group.subject)} fallback={defaults.subject} vars={vars} subject />
          <TextPreview testId={`preview-${group.kind}-text`} label="Text body" template={text(group.text)} fallback={defaults.text} vars={vars} />
          <HtmlPreview testId={`preview-${group.kind}-html`} label={`${group.title}, HTML body`} template={text(group.html)} fallback={defaults.html} vars={vars} />
          {group.sms ? <TextPreview testId={`preview-${group.kind}-sms`} label="SMS" template={text(group.sms)} fallback={OTP_SMS_DEFAULT} vars={vars} /> : null}
        </div>
      </div>
    </Section>
  );
}

function SettingsForm({ sectorID, settings, sectorName }: { sectorID: string; settings: SectorSettings; sectorName: string }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const {
    register,
    handleSubmit,
    reset,
    control,
    setError,
    setFocus,
    clearErrors,
    formState: { errors, dirtyFields, isDirty },
  } = useForm<FormValues>({ defaultValues: toForm(settings) });
  const [serverError, setServerError] = useState<unknown>(null);
  const values = useWatch({ control }) as FormValues;

  const save = useMutation({
    mutationFn: (body: Partial<SectorSettings>) => settingsApi.update(sectorID, body),
    onSuccess: (saved) => {
      setServerError(null);
      reset(toForm(saved));
      queryClient.setQueryData(['settings', sectorID], saved);
      toast('Settings saved.');
    },
    onError: (error) => {
      setServerError(error);
      if (error instanceof ApiError) {
        let first: SettingKey | undefined;
        for (const v of error.fieldViolations) {
          const key = ALL_SETTING_KEYS.find((k) => v.field === k || v.field.startsWith(`${k}.`) || v.field.startsWith(`${k}[`));
          if (!key) continue;
          setError(key, { type: 'server', message: v.description });
          first ??= key;
        }
        if (first) setFocus(first);
      }
    },
  });

  const onSubmit = handleSubmit((v) => {
    clearErrors();
    const body = toBody(v, dirtyFields as Partial<Record<SettingKey, unknown>>);
    if (Object.keys(body).length === 0) {
      toast('Nothing to save: no field changed.', 'info');
      return;
    }
    save.mutate(body);
  });

  return (
    <form onSubmit={onSubmit} aria-label="Sector settings" noValidate>
      <ErrorMessage error={serverError} title="The settings were not saved." />
      {GENERAL_GROUPS.map((group) => (
        <Section key={group.id} title={group.title} id={`settings-${group.id}`}>
          {group.fields.map((spec) => (
            <SettingInput key={spec.key} spec={spec} register={register} errors={errors} sectorID={sectorID} />
          ))}
        </Section>
      ))}
      {TEMPLATE_GROUPS.map((group) => (
        <TemplateEditor key={group.kind} group={group} register={register} errors={errors} values={values} sectorName={sectorName} />
      ))}
      <div className="form-actions form-actions--end">
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save settings
        </Button>
        <Button onClick={() => { reset(toForm(settings)); setServerError(null); }} disabled={!isDirty || save.isPending}>
          Discard changes
        </Button>
      </div>
    </form>
  );
}

export default function SettingsPage() {
  const sectorID = useSectorID();
  const sector = useSectorRecord(sectorID);
  const query = useQuery({ queryKey: ['settings', sectorID], queryFn: () => settingsApi.read(sectorID), enabled: !!sectorID });
  return (
    <Page title="Sector settings" wide>
      {sector ? <p className="page-lead">Sector <strong>{sector.name}</strong> ({sector.slug})</p> : null}
      {query.isPending ? <Loading label="Loading the settings…" /> : null}
      {query.isError ? <ErrorMessage error={query.error} title="The settings could not be loaded." /> : null}
      {query.data ? <SettingsForm key={sectorID} sectorID={sectorID} settings={query.data} sectorName={sector?.name ?? 'Example sector'} /> : null}
      {!query.isPending && !query.isError && !query.data ? <EmptyState title="No settings to show." /> : null}
    </Page>
  );
}
