import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { ApiError } from '../../api/client';
import { Button, Checkbox, ErrorMessage, Field, Section, TextArea, TextInput, useToast } from '../../ui';
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
  return v.all ? [ALL_EVENTS] : EVENT_TYPES.filter((t) => v.events.includes(t));
}

function checkUrl(value: string): true | string {
  const url = value.trim();
  if (url === '') return 'Enter the URL the events are sent to.';
  if (!/^https?:\/\/[^/?#\s]+/i.test(url)) return 'An absolute URL, starting with https://';
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
        toast(`Webhook ${result.updated.url} saved.`);
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
      <ErrorMessage error={save.error} title={webhook ? 'The webhook was not saved.' : 'The webhook was not created.'} fields={FIELDS} />
      {webhook ? (
        <p className="muted">
          Created {formatTime(webhook.createdAt)} · updated {formatTime(webhook.updatedAt)}
        </p>
      ) : null}
      <Field
        label="Endpoint URL"
        required
        error={errors.url?.message}
        hint="Where the events are POSTed: https://… on a public address (no credentials, no fragment). Plain http and private or loopback addresses are accepted only when the service allows private networks (development)."
      >
        {(p) => (
          <TextInput
            {...p}
            type="url"
            required
            autoComplete="off"
            spellCheck={false}
            {...register('url', { validate: checkUrl, maxLength: { value: MAX_URL, message: `At most ${MAX_URL} characters.` } })}
          />
        )}
      </Field>
      <fieldset className={errors.events ? 'fieldset-invalid' : undefined} aria-describedby={[eventsHintId, errors.events ? eventsErrorId : ''].filter(Boolean).join(' ')}>
        <legend>Events</legend>
        <p className="hint" id={eventsHintId}>
          What the endpoint receives. Receivers should ignore types they do not know.
        </p>
        <Checkbox label="All events" hint="Every event type, also those added later." {...register('all')} />
        {all ? null : (
          <div className="event-choices">
            {EVENT_TYPES.map((t) => (
              <Checkbox
                key={t}
                label={<code>{t}</code>}
                hint={eventHint(t)}
                value={t}
                {...register('events', { validate: (v, values) => values.all || v.length > 0 || 'Choose at least one event, or all events.' })}
              />
            ))}
          </div>
        )}
        {errors.events ? <p className="field-error" id={eventsErrorId}>{errors.events.message}</p> : null}
      </fieldset>
      <Field label="Description" error={errors.description?.message} hint={`What the endpoint is for; optional, up to ${MAX_DESCRIPTION} characters.`}>
        {(p) => <TextArea {...p} rows={2} autoComplete="off" {...register('description', { maxLength: { value: MAX_DESCRIPTION, message: `At most ${MAX_DESCRIPTION} characters.` } })} />}
      </Field>
      <Checkbox
        label="Enabled (events are sent to it)"
        hint={
          serviceReason
            ? `The service disabled it. ${asSentence(serviceReason)} Enabling it again clears that, and its failures start counting anew.`
            : 'A disabled endpoint gets no new events (test events excepted).'
        }
        error={errors.enabled?.message}
        {...register('enabled')}
      />
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {webhook ? 'Save webhook' : 'Create webhook'}
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}

/** Registers an endpoint; the answer (with its secret, shown once) goes to `onCreated`. */
export function CreateWebhookForm({ sectorID, onCreated, onDone }: { sectorID: string; onCreated: (created: CreateWebhookResponse) => void; onDone: () => void }) {
  return (
    <Section title="New webhook" id="new-webhook">
      <Editor sectorID={sectorID} onCreated={onCreated} onDone={onDone} />
    </Section>
  );
}

/** Changes an endpoint's URL, events, description or enabled flag (its secret stays). */
export function EditWebhookForm({ sectorID, webhook, onDone }: { sectorID: string; webhook: Webhook; onDone: () => void }) {
  return (
    <Section title={`Edit webhook ${webhook.url}`} id="edit-webhook">
      <Editor sectorID={sectorID} webhook={webhook} onDone={onDone} />
    </Section>
  );
}
