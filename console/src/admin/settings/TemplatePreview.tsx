import { useId } from 'react';
import { renderSubject, renderTemplate, type TemplateVars } from './templateRender';

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

/** A subject or a plain-text body (or an SMS), rendered as text: never as markup. */
export function TextPreview({ testId, label, template, fallback, vars, subject }: PreviewProps & { subject?: boolean }) {
  const id = useId();
  const source = template.trim() === '' ? fallback : template;
  const result = subject ? renderSubject(source, vars) : renderTemplate(source, vars, 'plain');
  return (
    <figure className="template-preview" aria-labelledby={id}>
      <figcaption id={id}>
        {label}
        {template.trim() === '' ? ' (built-in default)' : ''}
      </figcaption>
      {result.ok ? (
        <pre className="template-preview__text" data-testid={testId}>
          {result.output}
        </pre>
      ) : (
        <Problem error={result.error} />
      )}
    </figure>
  );
}

/**
 * An HTML body, rendered with values escaped (as the service does) into a sandboxed
 * iframe: `sandbox=""` forbids scripts, forms, navigation and same-origin access,
 * so the markup cannot touch the console.
 */
export function HtmlPreview({ testId, label, template, fallback, vars }: PreviewProps) {
  const id = useId();
  const source = template.trim() === '' ? fallback : template;
  const result = renderTemplate(source, vars, 'html');
  return (
    <figure className="template-preview" aria-labelledby={id}>
      <figcaption id={id}>
        {label}
        {template.trim() === '' ? ' (built-in default)' : ''}
      </figcaption>
      {result.ok ? (
        <iframe className="template-preview__frame" title={label} sandbox="" srcDoc={result.output} data-testid={testId} referrerPolicy="no-referrer" />
      ) : (
        <Problem error={result.error} />
      )}
    </figure>
  );
}
