import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { i18n } from '../../i18n';
import { errorText } from '../../ui';
import { settingsApi } from '../adminApi';
import type { MessageKind, TemplatePreview, TemplatePreviewBody } from '../types';
import { useDebounced } from '../util';

/** How long typing must pause before the preview asks the service again. */
const DEBOUNCE_MS = 300;

/** The templates of one message as the form holds them ('' is the built-in default). */
export interface PreviewTemplates {
  subject: string;
  text: string;
  html: string;
  /** Only for messages with an SMS (the one-time code). */
  sms?: string;
}

type Part = 'subject' | 'text' | 'html' | 'sms';

/** The query key of every preview of a sector (the settings page refreshes them after a save). */
export const previewKey = (sectorID: string) => ['template-preview', sectorID] as const;

/**
 * A message rendered by the service (POST …/templates/preview) exactly as it
 * would send it, with sample values: asked again once typing pauses, the last
 * answer staying in view meanwhile.
 */
function useTemplatePreview(sectorID: string, kind: MessageKind, templates: PreviewTemplates, language: TemplatePreviewBody['language']) {
  const body: TemplatePreviewBody = useDebounced({ kind, language, ...templates }, DEBOUNCE_MS);
  return useQuery({
    queryKey: [...previewKey(sectorID), body],
    queryFn: () => settingsApi.preview(sectorID, body),
    placeholderData: keepPreviousData,
    retry: false,
    enabled: !!sectorID,
  });
}

/** Why a part cannot be shown: the service's violation on its field, or the request's failure. */
function problemOf(error: unknown, part: Part): string | undefined {
  if (!error) return undefined;
  if (error instanceof ApiError && error.fieldViolations.length > 0) {
    return error.violation(part) ?? i18n.t('settings:previews.otherFirst');
  }
  return errorText(error);
}

function Problem({ error }: { error: string }) {
  const { t } = useTranslation('settings');
  return <p className="template-preview__error">{t('previews.problem', { error })}</p>;
}

/**
 * The frame of one preview: its caption (marked when the built-in default shows),
 * then `render(output)` of a template that renders, or the reason it does not.
 */
function Preview({ label, template, output, problem, render }: { label: string; template: string; output: string | undefined; problem: string | undefined; render(output: string): ReactNode }) {
  const { t } = useTranslation('settings');
  const id = useId();
  let content: ReactNode;
  if (problem !== undefined) content = <Problem error={problem} />;
  else if (output !== undefined) content = render(output);
  else content = <p className="template-preview__note">{t('previews.rendering')}</p>;
  return (
    <figure className="template-preview" aria-labelledby={id}>
      <figcaption id={id}>
        {label}
        {template.trim() === '' ? t('previews.builtIn') : ''}
      </figcaption>
      {content}
    </figure>
  );
}

function TextOutput({ testId, output }: { testId: string; output: string }) {
  return (
    <pre className="template-preview__text" data-testid={testId}>
      {output}
    </pre>
  );
}

/**
 * The live preview of one message: subject, text body and (for codes) SMS as
 * text, never as markup; the HTML body in a sandboxed iframe (`sandbox=""` forbids
 * scripts, forms, navigation and same-origin access, so the markup cannot touch
 * the console). Test ids: preview-<testKind>-<part>. Rendered in `language`: its built-in
 * texts for empty templates, its duration words.
 */
export function TemplatePreviews({
  sectorID,
  kind,
  testKind,
  title,
  templates,
  language,
}: {
  sectorID: string;
  kind: MessageKind;
  testKind: string;
  title: string;
  templates: PreviewTemplates;
  /** The language to render in (the sector's default when absent). */
  language?: TemplatePreviewBody['language'];
}) {
  const { t } = useTranslation('settings');
  const query = useTemplatePreview(sectorID, kind, templates, language);
  // A stale answer stays in view while a newer one loads; an error replaces it.
  const data: TemplatePreview | undefined = query.isError ? undefined : query.data;
  const part = (name: Part) => ({ output: data?.[name], problem: problemOf(query.error, name) });
  return (
    <div className="template-grid__preview" aria-label={t('previews.label', { title })} role="group" aria-busy={query.isFetching}>
      <p className="template-preview__note">{t('previews.note')}</p>
      <Preview label={t('previews.subject')} template={templates.subject} {...part('subject')} render={(o) => <TextOutput testId={`preview-${testKind}-subject`} output={o} />} />
      <Preview label={t('previews.text')} template={templates.text} {...part('text')} render={(o) => <TextOutput testId={`preview-${testKind}-text`} output={o} />} />
      <Preview
        label={t('previews.html', { title })}
        template={templates.html}
        {...part('html')}
        render={(o) => <iframe className="template-preview__frame" title={t('previews.html', { title })} sandbox="" srcDoc={o} data-testid={`preview-${testKind}-html`} referrerPolicy="no-referrer" />}
      />
      {templates.sms !== undefined ? <Preview label={t('previews.sms')} template={templates.sms} {...part('sms')} render={(o) => <TextOutput testId={`preview-${testKind}-sms`} output={o} />} /> : null}
    </div>
  );
}
