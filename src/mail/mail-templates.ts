import Handlebars from 'handlebars';

/** A mail's subject, text body and HTML body (Handlebars); a sector's empty (or blank) one means the built-in default. */
export interface TemplateSet {
  subject: string;
  text: string;
  html: string;
}

/** The documented template variables (docs/api.md, Templates); any other name renders empty. */
export type TemplateVars = {
  code?: string;
  link?: string;
  email?: string;
  username?: string;
  sectorName?: string;
  expiresInMinutes?: number;
  expiresInHours?: number;
  /** What changed (notice mails): "email address", "phone number". */
  change?: string;
  /** The sign-in method added (notice mails): "passkey", "authenticator app", ... */
  factor?: string;
  /** The mail's language (a shipped language's code): `duration` writes in it, `<html lang>` names it. */
  language?: string;
  /** The sector's BrandDisplayName, else its name. */
  brandName?: string;
  /** The sector's uploaded logo (absolute URL), or empty. */
  logoURL?: string;
  /** The sector's BrandPrimaryColor (else the theme's), and the label colour that contrasts with it. */
  primaryColor?: string;
  buttonTextColor?: string;
  supportEmail?: string;
  termsURL?: string;
  privacyURL?: string;
};

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

type Mode = 'plain' | 'html';
type Compiled = (vars: TemplateVars) => string;

/** A private Handlebars environment: helpers or partials registered elsewhere cannot leak in. */
const handlebars = Handlebars.create();
/** `{{plural expiresInMinutes "minute" "minutes"}}`: "1 minute", "30 minutes". */
handlebars.registerHelper('plural', (count: unknown, one: unknown, many: unknown) => `${String(count)} ${Number(count) === 1 ? String(one) : String(many)}`);

const DURATION_UNITS = new Set(['second', 'minute', 'hour', 'day']);

/**
 * `{{duration expiresInMinutes "minute"}}`: the amount written out in the mail's language
 * (`language`), "15 minutes", "15 Minuten", "1 minute"; the unit is second, minute, hour or day.
 */
handlebars.registerHelper('duration', (count: unknown, unit: unknown, options: Handlebars.HelperOptions) => {
  const language = String((options?.data?.root as TemplateVars | undefined)?.language || 'en');
  const amount = Number(count);
  if (!DURATION_UNITS.has(String(unit)) || !Number.isFinite(amount)) return String(count ?? '');
  return new Intl.NumberFormat(language, { style: 'unit', unit: String(unit), unitDisplay: 'long' }).format(amount);
});

const CACHE_MAX = 500;
const cache = new Map<string, Compiled>();

/**
 * Compiles once per (mode, template): plain output (subject, text, SMS) does not
 * escape values, HTML output does. Least recently used entries leave first.
 */
function compiled(template: string, mode: Mode): Compiled {
  const key = `${mode}\u0000${template}`;
  let fn = cache.get(key);
  if (fn) {
    cache.delete(key);
    cache.set(key, fn);
    return fn;
  }
  fn = handlebars.compile<TemplateVars>(template, { noEscape: mode === 'plain', strict: false });
  cache.set(key, fn);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string);
  return fn;
}

function pick(template: string, fallback: string): string {
  return template.trim() === '' ? fallback : template;
}

/** Renders a mail from a sector's templates, each empty one replaced by its default. */
export function renderMail(templates: TemplateSet, defaults: TemplateSet, vars: TemplateVars): RenderedMail {
  const data = { ...vars };
  // A subject is one header line: line breaks a value may carry become spaces.
  const subject = compiled(pick(templates.subject, defaults.subject), 'plain')(data).replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return {
    subject,
    text: compiled(pick(templates.text, defaults.text), 'plain')(data),
    html: compiled(pick(templates.html, defaults.html), 'html')(data),
  };
}

/** Renders an SMS from a sector's template, or the default when it is empty. */
export function renderSms(template: string, defaultTemplate: string, vars: TemplateVars): string {
  return compiled(pick(template, defaultTemplate), 'plain')({ ...vars });
}
