import Handlebars from 'handlebars';
import { registerDecorator, ValidationOptions } from 'class-validator';
import { isShippedLanguage, SHIPPED_LANGUAGES } from '../common/languages';

/** Compiles a template the way the mail module will, so a broken one is refused when saved. */
function handlebarsError(template: string): string | undefined {
  try {
    Handlebars.precompile(template, { strict: false });
    return undefined;
  } catch (err) {
    return (err as Error).message.split('\n')[0];
  }
}

export function IsHandlebarsTemplate(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isHandlebarsTemplate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args) => `must be a valid Handlebars template (${handlebarsError(String(args.value)) ?? 'syntax error'})`,
        ...options,
      },
      validator: { validate: (value: unknown) => typeof value === 'string' && handlebarsError(value) === undefined },
    });
}

export function IsHttpUrlOrEmpty(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isHttpUrlOrEmpty',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'must be an http or https URL, or empty', ...options },
      validator: {
        validate(value: unknown) {
          if (value === '') return true;
          if (typeof value !== 'string' || value.length > 2048) return false;
          try {
            const u = new URL(value);
            return u.protocol === 'http:' || u.protocol === 'https:';
          } catch {
            return false;
          }
        },
      },
    });
}

/** What is wrong with a `LocalizedTemplates` value (language → template setting → template), if anything. */
function localizedTemplatesError(value: unknown, maxLengths: Readonly<Record<string, number>>): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object of languages';
  for (const [language, templates] of Object.entries(value)) {
    if (!isShippedLanguage(language)) return `has the language "${language}"; the languages are ${SHIPPED_LANGUAGES.join(', ')}`;
    if (typeof templates !== 'object' || templates === null || Array.isArray(templates)) return `${language} must be an object of templates`;
    for (const [key, template] of Object.entries(templates as Record<string, unknown>)) {
      const max = maxLengths[key];
      if (max === undefined) return `${language} has "${key}", which is not a template setting (${Object.keys(maxLengths).join(', ')})`;
      if (typeof template !== 'string') return `${language}.${key} must be a string`;
      if (template.length > max) return `${language}.${key} must be at most ${max} characters`;
      const broken = handlebarsError(template);
      if (broken !== undefined) return `${language}.${key} must be a valid Handlebars template (${broken})`;
    }
  }
  return undefined;
}

export function IsLocalizedTemplates(maxLengths: Readonly<Record<string, number>>, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isLocalizedTemplates',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: (args) => localizedTemplatesError(args.value, maxLengths) ?? 'is not valid', ...options },
      validator: { validate: (value: unknown) => localizedTemplatesError(value, maxLengths) === undefined },
    });
}

/** A relying party as WebAuthn sees it: the RP ID (a host name) and the exact origins allowed to use it. */
export interface RelyingPartyScope {
  rpId: string;
  origins: readonly string[];
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Why a relying party cannot work in a browser (none: it can): an RP ID is
 * needed (a domain name, not an IP address), at least one origin, and each
 * origin must be https — http only on `localhost`, the one host browsers treat
 * as a secure context — with a host equal to the RP ID or a subdomain of it.
 * One violation per settings field: a missing RP ID on WebAuthnRPID, origin
 * problems on WebAuthnRPOrigins, except that origins that do not sit on the RP
 * ID are blamed on `mismatchField` (the field the caller changed).
 */
export function relyingPartyViolations(
  rp: RelyingPartyScope,
  mismatchField: 'WebAuthnRPID' | 'WebAuthnRPOrigins' = 'WebAuthnRPOrigins',
): Array<{ field: string; description: string }> {
  const problems = new Map<string, string[]>();
  const add = (field: string, description: string) => problems.set(field, [...(problems.get(field) ?? []), description]);
  const rpId = rp.rpId.toLowerCase();
  if (!rpId) add('WebAuthnRPID', 'is required for passkeys: set WebAuthnRPID or give the sector a domain');
  else if (IPV4.test(rpId) || rpId.includes(':')) add('WebAuthnRPID', 'must be a domain name, not an IP address');
  if (rp.origins.length === 0) add('WebAuthnRPOrigins', 'needs at least one origin for passkeys: set WebAuthnRPOrigins or give the sector allowed origins');
  for (const origin of rp.origins) {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      add('WebAuthnRPOrigins', `${origin} is not an origin`);
      continue;
    }
    const host = url.hostname.toLowerCase();
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && host === 'localhost')) {
      add('WebAuthnRPOrigins', `${origin} must use https (http is allowed only for localhost)`);
    }
    if (rpId && host !== rpId && !host.endsWith(`.${rpId}`)) {
      add(mismatchField, `${origin} is not on the RP ID ${rpId} or a subdomain of it`);
    }
  }
  return [...problems].map(([field, descriptions]) => ({ field, description: descriptions.join('; ') }));
}
