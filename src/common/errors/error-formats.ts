import { ArgumentsHost, ExceptionFilter, Global, Injectable, Module } from '@nestjs/common';

/**
 * Routes that answer errors in another protocol's body (SCIM's, for `/scim/v2/`),
 * by path prefix. Their controllers' filters handle what their handlers and guards
 * throw; this lets the global filter hand them, too, what fails before routing (a
 * body the JSON parser refuses).
 */
@Injectable()
export class ErrorFormats {
  private readonly formats: Array<{ prefix: string; filter: ExceptionFilter }> = [];

  register(prefix: string, filter: ExceptionFilter): void {
    this.formats.push({ prefix: prefix.toLowerCase(), filter });
  }

  /** Answers the error with the filter registered for the request's path; false when none is. */
  answer(path: string, exception: unknown, host: ArgumentsHost): boolean {
    const lower = path.toLowerCase();
    const format = this.formats.find((f) => lower.startsWith(f.prefix));
    if (!format) return false;
    format.filter.catch(exception, host);
    return true;
  }
}

@Global()
@Module({ providers: [ErrorFormats], exports: [ErrorFormats] })
export class ErrorFormatsModule {}
