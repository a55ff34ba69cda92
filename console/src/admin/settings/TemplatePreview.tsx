import { useId, type ReactNode } from 'react';
import { renderSubject, renderTemplate, type RenderResult, type TemplateVars } from './templateRender';

/** Sample values the preview fills in (what the service passes when it sends the message). */
export function sampleVars(sectorName: string): TemplateVars {
  return {
    code: '482913',
    link: 'https://login.example.com/invite?token=EXAMPLE-TOKEN',
    email: 'ada@example.com',
    username: 'ada',
    sectorName,
    expiresInMinutes: 15,
    expiresInHours: 168,
  };
}

interface PreviewProps {
  /** Stable id for tests: preview-<kind>-<part>. */
  testId: string;
  label: string;
  template: string;
  fallback: string;
  vars: TemplateVars;
}

function Problem({ error }: { error: string }) {
  return <p className="template-preview__error">The preview cannot render this template: {error}. The service checks it again when you save.</p>;
}

/**
 * The frame of one preview: its caption (marked when the built-in default shows),
 * then `render(output)` of a template that renders, or the reason it does not.
 */
function Preview({ label, template, result, render }: { label: string; template: string; result: RenderResult; render(output: string): ReactNode }) {
  const id = useId();
  return (
    <figure className="template-preview" aria-labelledby={id}>
      <figcaption id={id}>
        {label}
        {template.trim() === '' ? ' (built-in default)' : ''}
      </figcaption>
      {result.ok ? render(result.output) : <Problem error={result.error} />}
    </figure>
  );
}

/** A subject or a plain-text body (or an SMS), rendered as text: never as markup. */
export function TextPreview({ testId, label, template, fallback, vars, subject }: PreviewProps & { subject?: boolean }) {
  const source = template.trim() === '' ? fallback : template;
  const result = subject ? renderSubject(source, vars) : renderTemplate(source, vars, 'plain');
  return (
    <Preview
      label={label}
      template={template}
      result={result}
      render={(output) => (
        <pre className="template-preview__text" data-testid={testId}>
          {output}
        </pre>
      )}
    />
  );
}

/**
 * An HTML body, rendered with values escaped (as the service does) into a sandboxed
 * iframe: `sandbox=""` forbids scripts, forms, navigation and same-origin access,
 * so the markup cannot touch the console.
 */
export function HtmlPreview({ testId, label, template, fallback, vars }: PreviewProps) {
  const source = template.trim() === '' ? fallback : template;
  return (
    <Preview
      label={label}
      template={template}
      result={renderTemplate(source, vars, 'html')}
      render={(output) => <iframe className="template-preview__frame" title={label} sandbox="" srcDoc={output} data-testid={testId} referrerPolicy="no-referrer" />}
    />
  );
}
