import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { Button, Checkbox, ErrorMessage, Field, Section, TextArea, TextInput, useToast } from '../../ui';
import { i18n } from '../../i18n';
import { webhooksApi } from '../adminApi';
import type { CreateWebhookResponse, ServiceEventType, Webhook, WebhookEventType } from '../types';
import { formatTime } from '../util';
import { ALL_EVENTS, asSentence, EVENT_TYPES, eventHint, takesAll } from './webhookEvents';

/**
 * A webhook's URL, events, description and enabled flag, as the API takes them:
 * creating one (its signing secret is in the answer only, handed to `onCreated`)
 * or changing one (PUT merges; the form sends all four). Events are "All events"
 * (`["*"]`, those added later included) or a choice of types. The service's URL
 * rules (https, public addresses) answer as field violations beside their fields.
 */

const MAX_DESCRIPTION = 500;
const MAX_URL = 2048;

interface Values {
  url: string;
  description: string;
  enabled: boolean;
  all: boolean;
  events: ServiceEventType[];
}

const FIELDS: Array<keyof Values> = ['url', 'description', 'enabled', 'events'];

function fieldOf(field: string): keyof Values | undefined {
  return FIELDS.find((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`));
}

function toValues(w?: Webhook): Values {
  const all = w ? takesAll(w.events) : false;
  return {
    url: w?.url ?? '',
    description: w?.description ?? '',
    enabled: w?.enabled ?? true,
    all,
    events: w && !all ? (w.events.filter((e) => e !== ALL_EVENTS) as ServiceEventType[]) : [],
  };
}

function eventsOf(v: Values): WebhookEventType[] {
  // Offered order, whatever order they were ticked in.
  return v.all ? [ALL_EVENTS] : EVENT_TYPES.filter((type) => v.events.includes(type));
}

function checkUrl(value: string): true | string {
  const url = value.trim();
  if (url === '') return i18n.t('webhooks:form.urlNeeded');
  if (!/^https?:\/\/[^/?#\s]+/i.test(url)) return i18n.t('webhooks:form.urlAbsolute');
  return true;
}

interface EditorProps {
  sectorID: string;
  /** The webhook to edit; absent: a new one. */
  webhook?: Webhook;
  onCreated?: (created: CreateWebhookResponse) => void;
  onDone: () => void;
}

function Editor({ sectorID, webhook, onCreated, onDone }: EditorProps) {
  const { t } = useTranslation('webhooks');
  const toast = useToast();
  const queryClient = useQueryClient();
  const id = useId();
  const headingId = webhook ? 'edit-webhook-heading' : 'new-webhook-heading';
  const { register, handleSubmit, setError, clearErrors, setFocus, control, formState: { errors } } = useForm<Values>({ defaultValues: toValues(webhook) });
  const all = useWatch({ control, name: 'all' });

  useEffect(() => setFocus('url'), [setFocus]);

  const save = useMutation({
    mutationFn: async (v: Values) => {
      const body = { url: v.url.trim(), events: eventsOf(v), description: v.description.trim(), enabled: v.enabled };
      if (webhook) return { updated: await webhooksApi.update(sectorID, webhook.id, body) };
      return { created: await webhooksApi.create(sectorID, body) };
    },
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: ['webhooks', sectorID] });
      if (result.updated) {
        toast(t('form.saved', { url: result.updated.url }));
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

  const eventsHintId = `${id}-events-hint`;
  const eventsErrorId = `${id}-events-error`;
  // Why the service disabled it, if it did (an admin's own disabling has no reason).
  const serviceReason = webhook && !webhook.enabled ? webhook.disabledReason : '';

  return (
    <form aria-labelledby={headingId} noValidate onSubmit={handleSubmit((v) => { clearErrors(); save.mutate(v); })}>
      <ErrorMessage error={save.error} title={webhook ? t('form.notSaved') : t('form.notCreated')} fields={FIELDS} />
      {webhook ? (
        <p className="muted">
          {t('form.times', { created: formatTime(webhook.createdAt), updated: formatTime(webhook.updatedAt) })}
        </p>
      ) : null}
      <Field
        label={t('form.url')}
        required
        error={errors.url?.message}
        hint={t('form.urlHint')}
      >
        {(p) => (
          <TextInput
            {...p}
            type="url"
            required
            autoComplete="off"
            spellCheck={false}
            {...register('url', { validate: checkUrl, maxLength: { value: MAX_URL, message: t('form.tooLong', { max: MAX_URL }) } })}
          />
        )}
      </Field>
      <fieldset className={errors.events ? 'fieldset-invalid' : undefined} aria-describedby={[eventsHintId, errors.events ? eventsErrorId : ''].filter(Boolean).join(' ')}>
        <legend>{t('eventsHeader')}</legend>
        <p className="hint" id={eventsHintId}>
          {t('form.eventsHint')}
        </p>
        <Checkbox label={t('allEvents')} hint={t('form.allHint')} {...register('all')} />
        {all ? null : (
          <div className="event-choices">
            {EVENT_TYPES.map((type) => (
              <Checkbox
                key={type}
                label={<code>{type}</code>}
                hint={eventHint(type)}
                value={type}
                {...register('events', { validate: (v, values) => values.all || v.length > 0 || t('form.eventNeeded') })}
              />
            ))}
          </div>
        )}
        {errors.events ? <p className="field-error" id={eventsErrorId}>{errors.events.message}</p> : null}
      </fieldset>
      <Field label={t('form.description')} error={errors.description?.message} hint={t('form.descriptionHint', { max: MAX_DESCRIPTION })}>
        {(p) => <TextArea {...p} rows={2} autoComplete="off" {...register('description', { maxLength: { value: MAX_DESCRIPTION, message: t('form.tooLong', { max: MAX_DESCRIPTION }) } })} />}
      </Field>
      <Checkbox
        label={t('form.enabled')}
        hint={serviceReason ? t('form.serviceDisabled', { reason: asSentence(serviceReason) }) : t('form.enabledHint')}
        error={errors.enabled?.message}
        {...register('enabled')}
      />
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {webhook ? t('form.save') : t('form.create')}
        </Button>
        <Button onClick={onDone}>{t('form.cancel')}</Button>
      </div>
    </form>
  );
}

/** Registers an endpoint; the answer (with its secret, shown once) goes to `onCreated`. */
export function CreateWebhookForm({ sectorID, onCreated, onDone }: { sectorID: string; onCreated: (created: CreateWebhookResponse) => void; onDone: () => void }) {
  const { t } = useTranslation('webhooks');
  return (
    <Section title={t('new')} id="new-webhook">
      <Editor sectorID={sectorID} onCreated={onCreated} onDone={onDone} />
    </Section>
  );
}

/** Changes an endpoint's URL, events, description or enabled flag (its secret stays). */
export function EditWebhookForm({ sectorID, webhook, onDone }: { sectorID: string; webhook: Webhook; onDone: () => void }) {
  const { t } = useTranslation('webhooks');
  return (
    <Section title={t('editLabel', { url: webhook.url })} id="edit-webhook">
      <Editor sectorID={sectorID} webhook={webhook} onDone={onDone} />
    </Section>
  );
}
