import Handlebars from 'handlebars';
import { registerDecorator, ValidationOptions } from 'class-validator';

/** Compiles a template the way the mail module will, so a broken one is refused when saved. */
export function handlebarsError(template: string): string | undefined {
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
