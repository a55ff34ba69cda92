import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { get, useForm, useWatch, type UseFormRegister, type FieldErrors } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { Button, Checkbox, EmptyState, ErrorMessage, Field, Loading, Page, Section, Select, TextArea, TextInput, useToast } from '../../ui';
import { BrandImages, BrandPreview } from './BrandingSection';
import { settingsApi } from '../adminApi';
import { useSectorID, useSectorRecord } from '../sectorContext';
import { SectorLead } from '../SectorLead';
import type { MessageKind, SectorSettings, UpdateSectorSettingsBody } from '../types';
import {
  ALL_SETTING_KEYS,
  GENERAL_GROUPS,
  LANGUAGE_OPTIONS,
  SMS_MAX,
  SUBJECT_MAX,
  TEMPLATE_GROUPS,
  TEMPLATE_KEYS,
  TEMPLATE_MAX,
  type FieldSpec,
  type LanguageCode,
  type SettingKey,
  type TemplateGroup,
} from './settingsFields';
import { previewKey, TemplatePreviews } from './TemplatePreview';

/**
 * The form's values: every setting, origins as one per line; `localized` holds the
 * templates of the languages other than the stored default one (LocalizedTemplates),
 * every template setting of each, '' for the built-in text.
 */
type FormValues = Record<SettingKey, string | boolean> & { localized: Record<string, Record<string, string>> };

/** A template's form field: the top-level setting in the default language, else that language's entry. */
type TemplateField = SettingKey | `localized.${string}.${string}`;

const templateField = (language: string, defaultLanguage: string, key: SettingKey): TemplateField => (language === defaultLanguage ? key : `localized.${language}.${key}`);

/** The message each template group configures, as the preview endpoint names it. */
const MESSAGE_KIND: Record<TemplateGroup['kind'], MessageKind> = { otp: 'code', invite: 'invite', passwordReset: 'passwordReset' };

/** The fields whose violations the form marks at an input (a language's templates among them). */
const SHOWN_FIELDS = [...ALL_SETTING_KEYS, 'LocalizedTemplates'];


function toForm(s: SectorSettings): FormValues {
  const out = { localized: {} } as unknown as FormValues;
  for (const key of ALL_SETTING_KEYS) {
    const value = s[key];
    out[key] = Array.isArray(value) ? value.join('\n') : (value as string | boolean);
  }
  for (const { value: language } of LANGUAGE_OPTIONS) {
    if (language === s.DefaultLanguage) continue;
    const stored = s.LocalizedTemplates?.[language] ?? {};
    out.localized[language] = Object.fromEntries(TEMPLATE_KEYS.map((key) => [key, stored[key] ?? '']));
  }
  return out;
}

function fieldSpec(key: SettingKey): FieldSpec | undefined {
  for (const g of GENERAL_GROUPS) for (const f of g.fields) if (f.key === key) return f;
  return undefined;
}

type DirtyFields = Partial<Record<SettingKey, unknown>> & { localized?: Record<string, unknown> };

/**
 * The PUT body: only the fields the admin changed (PUT merges; absent fields keep their
 * value). A language whose templates changed is sent whole, its empty ones left out
 * (the service replaces that language's templates; none left removes the language).
 */
function toBody(values: FormValues, dirty: DirtyFields): UpdateSectorSettingsBody {
  const body: Record<string, unknown> = {};
  const languages = Object.keys(dirty.localized ?? {}).filter((language) => dirty.localized?.[language]);
  if (languages.length > 0) {
    body.LocalizedTemplates = Object.fromEntries(
      languages.map((language) => [language, Object.fromEntries(Object.entries(values.localized[language] ?? {}).filter(([, template]) => template !== ''))]),
    );
  }
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
  return body as UpdateSectorSettingsBody;
}

function SettingInput({ spec, register, errors, sectorID }: { spec: FieldSpec; register: UseFormRegister<FormValues>; errors: FieldErrors<FormValues>; sectorID: string }) {
  const { t } = useTranslation('settings');
  const error = errors[spec.key]?.message;
  const label = t(`fields.${spec.key}.label`);
  const help = t(`fields.${spec.key}.help`, { defaultValue: '' }) || undefined;
  if (spec.kind === 'boolean') return <Checkbox label={label} hint={help} error={error} {...register(spec.key)} />;
  if (spec.kind === 'origins') {
    return (
      <Field label={label} hint={help} error={error}>
        {(p) => <TextArea {...p} rows={3} spellCheck={false} autoComplete="off" {...register(spec.key)} />}
      </Field>
    );
  }
  if (spec.kind === 'choice') {
    return (
      <Field label={label} hint={help} error={error}>
        {(p) => <Select {...p} options={[...spec.options]} {...register(spec.key)} />}
      </Field>
    );
  }
  if (spec.kind === 'color') {
    return (
      <Field label={label} hint={help} error={error}>
        {(p) => <TextInput {...p} className="input--color" placeholder="#rrggbb" maxLength={7} autoComplete="off" spellCheck={false} {...register(spec.key)} />}
      </Field>
    );
  }
  if (spec.kind === 'int64') {
    return (
      <Field label={t('withUnit', { label, unit: t(`units.${spec.unit}`) })} hint={help} error={error}>
        {(p) => (
          <TextInput
            {...p}
            inputMode="numeric"
            autoComplete="off"
            {...register(spec.key, { pattern: { value: /^\s*\d+\s*$/, message: t('wholeNumber', { unit: t(`units.${spec.unit}`) }) } })}
          />
        )}
      </Field>
    );
  }
  const hint =
    spec.key === 'MagicLinkURL' ? (
      <>
        {help} {t('linkHint')} <code>{`${window.location.origin}/account/link?sector=${sectorID}`}</code>.
      </>
    ) : (
      help
    );
  return (
    <Field label={label} hint={hint} error={error}>
      {(p) => <TextInput {...p} type={spec.type ?? 'text'} maxLength={spec.maxLength} autoComplete="off" spellCheck={false} {...register(spec.key)} />}
    </Field>
  );
}

function TemplateEditor({
  group,
  register,
  errors,
  values,
  sectorID,
  language,
  defaultLanguage,
}: {
  group: TemplateGroup;
  register: UseFormRegister<FormValues>;
  errors: FieldErrors<FormValues>;
  values: FormValues;
  sectorID: string;
  language: LanguageCode;
  defaultLanguage: string;
}) {
  const { t } = useTranslation('settings');
  const hint = t('templates.placeholders', { list: group.variables.map((v) => `{{${v}}}`).join(', ') });
  const builtIn = t('templates.builtIn');
  const title = t(`templates.${group.kind}.title`);
  const short = t(`templates.${group.kind}.short`);
  const field = (key: SettingKey) => templateField(language, defaultLanguage, key);
  const errorAt = (name: TemplateField) => (get(errors, name) as { message?: string } | undefined)?.message;
  const text = (key: SettingKey) => (language === defaultLanguage ? String(values[key] ?? '') : (values.localized?.[language]?.[key] ?? ''));
  return (
    <Section title={title} id={`tpl-${group.kind}`}>
      <div className="template-grid">
        <div className="template-grid__inputs">
          <Field label={t('templates.subject', { short })} hint={hint} error={errorAt(field(group.subject))}>
            {(p) => <TextInput {...p} maxLength={SUBJECT_MAX} spellCheck={false} placeholder={builtIn} {...register(field(group.subject))} />}
          </Field>
          <Field label={t('templates.text', { short })} error={errorAt(field(group.text))}>
            {(p) => <TextArea {...p} rows={6} maxLength={TEMPLATE_MAX} spellCheck={false} placeholder={builtIn} {...register(field(group.text))} />}
          </Field>
          <Field label={t('templates.html', { short })} hint={t('templates.htmlHint')} error={errorAt(field(group.html))}>
            {(p) => <TextArea {...p} rows={6} maxLength={TEMPLATE_MAX} spellCheck={false} placeholder={builtIn} {...register(field(group.html))} />}
          </Field>
          {group.sms ? (
            <Field label={t('templates.sms')} hint={t('templates.smsHint', { max: SMS_MAX })} error={errorAt(field(group.sms))}>
              {(p) => <TextArea {...p} rows={2} maxLength={SMS_MAX} spellCheck={false} placeholder={builtIn} {...register(field(group.sms!))} />}
            </Field>
          ) : null}
        </div>
        <TemplatePreviews
          sectorID={sectorID}
          kind={MESSAGE_KIND[group.kind]}
          testKind={group.kind}
          title={title}
          language={language}
          templates={{ subject: text(group.subject), text: text(group.text), html: text(group.html), ...(group.sms ? { sms: text(group.sms) } : {}) }}
        />
      </div>
    </Section>
  );
}

function SettingsForm({ sectorID, sectorName, settings }: { sectorID: string; sectorName: string; settings: SectorSettings }) {
  const { t } = useTranslation('settings');
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
  const [templateLanguage, setTemplateLanguage] = useState<LanguageCode>(() => (LANGUAGE_OPTIONS.some((o) => o.value === settings.DefaultLanguage) ? (settings.DefaultLanguage as LanguageCode) : 'en'));

  const save = useMutation({
    mutationFn: (body: UpdateSectorSettingsBody) => settingsApi.update(sectorID, body),
    onSuccess: (saved) => {
      setServerError(null);
      reset(toForm(saved));
      queryClient.setQueryData(['settings', sectorID], saved);
      // The previews read the stored settings (expiries) too.
      void queryClient.invalidateQueries({ queryKey: previewKey(sectorID) });
      toast(t('saved'));
    },
    onError: (error) => {
      setServerError(error);
      if (error instanceof ApiError) {
        let first: TemplateField | undefined;
        for (const v of error.fieldViolations) {
          const localized = v.field === 'LocalizedTemplates' ? /^(\w+)\.(\w+) (.+)$/.exec(v.description) : null;
          if (localized && localized[1] in values.localized && TEMPLATE_KEYS.includes(localized[2] as SettingKey)) {
            // "de.OTPEmailSubject must be …": at that language's field, shown with that language picked.
            const name = templateField(localized[1], settings.DefaultLanguage, localized[2] as SettingKey);
            setError(name, { type: 'server', message: localized[3] });
            if (!first) setTemplateLanguage(localized[1] as LanguageCode);
            first ??= name;
            continue;
          }
          const key = ALL_SETTING_KEYS.find((k) => v.field === k || v.field.startsWith(`${k}.`) || v.field.startsWith(`${k}[`));
          if (!key) continue;
          setError(key, { type: 'server', message: v.description });
          first ??= key;
        }
        // After the render that shows the field (a language picked above).
        if (first) setTimeout(() => setFocus(first));
      }
    },
  });

  const onSubmit = handleSubmit((v) => {
    clearErrors();
    const body = toBody(v, dirtyFields as DirtyFields);
    if (Object.keys(body).length === 0) {
      toast(t('nothing'), 'info');
      return;
    }
    save.mutate(body);
  });

  return (
    <form onSubmit={onSubmit} aria-label={t('title')} noValidate>
      <ErrorMessage error={serverError} title={t('failed')} fields={SHOWN_FIELDS} />
      {GENERAL_GROUPS.map((group) => (
        <Section key={group.id} title={t(`groups.${group.id}`)} id={`settings-${group.id}`}>
          {group.fields.map((spec) => (
            <SettingInput key={spec.key} spec={spec} register={register} errors={errors} sectorID={sectorID} />
          ))}
          {group.id === 'look' ? (
            <>
              <BrandPreview
                name={String(values.BrandDisplayName || '') || sectorName}
                logoURL={settings.BrandLogoURL}
                light={{ primary: String(values.BrandPrimaryColor ?? ''), background: String(values.BrandBackgroundColor ?? '') }}
                dark={{ primary: String(values.BrandPrimaryColorDark ?? ''), background: String(values.BrandBackgroundColorDark ?? '') }}
              />
              <BrandImages sectorID={sectorID} settings={settings} />
            </>
          ) : null}
        </Section>
      ))}
      <div className="template-language">
        <Field
          label={t('templateLanguage')}
          hint={t('templateLanguageHint')}
        >
          {(p) => (
            <Select
              {...p}
              value={templateLanguage}
              onChange={(e) => setTemplateLanguage(e.target.value as LanguageCode)}
              options={LANGUAGE_OPTIONS.map((o) => ({ value: o.value, label: o.value === settings.DefaultLanguage ? t('defaultLanguageOption', { language: o.label }) : o.label }))}
            />
          )}
        </Field>
      </div>
      {TEMPLATE_GROUPS.map((group) => (
        <TemplateEditor
          key={`${group.kind}-${templateLanguage}`}
          group={group}
          register={register}
          errors={errors}
          values={values}
          sectorID={sectorID}
          language={templateLanguage}
          defaultLanguage={settings.DefaultLanguage}
        />
      ))}
      <div className="form-actions form-actions--end">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {t('save')}
        </Button>
        <Button onClick={() => { reset(toForm(settings)); setServerError(null); }} disabled={!isDirty || save.isPending}>
          {t('discard')}
        </Button>
      </div>
    </form>
  );
}

export default function SettingsPage() {
  const { t } = useTranslation('settings');
  const sectorID = useSectorID();
  const sector = useSectorRecord(sectorID);
  const query = useQuery({ queryKey: ['settings', sectorID], queryFn: () => settingsApi.read(sectorID), enabled: !!sectorID });
  return (
    <Page title={t('title')} wide>
      <SectorLead sectorID={sectorID} />
      {query.isPending ? <Loading label={t('loading')} /> : null}
      {query.isError ? <ErrorMessage error={query.error} title={t('loadFailed')} /> : null}
      {query.data ? <SettingsForm key={sectorID} sectorID={sectorID} sectorName={sector?.name ?? ''} settings={query.data} /> : null}
      {!query.isPending && !query.isError && !query.data ? <EmptyState title={t('none')} /> : null}
    </Page>
  );
}
