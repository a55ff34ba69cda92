import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AllowedOrigins } from '../access/browser-policy';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { headerValue, IncomingRequest } from '../common/http/request';

/** The header the console sends with every cookie-authenticated call; a cross-site form or image cannot add it. */
const CSRF_HEADER = 'x-requested-with';
export const CSRF_HEADER_VALUE = 'iam-console';

/**
 * Cross-site request forgery defence of the cookie-authenticated routes, on top
 * of SameSite=Strict: the custom header is required (a cross-origin page could
 * only send it after a CORS preflight, and the browser policy never allows it),
 * and a request whose `Origin` is present must come from PUBLIC_URL's origin,
 * from the origin the request itself addressed (`Host`), or from an origin a
 * sector allows.
 */
@Injectable()
export class SameOriginGuard implements CanActivate {
  private readonly publicOrigin: string;

  constructor(
    private readonly origins: AllowedOrigins,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.publicOrigin = new URL(config.publicUrl).origin;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<IncomingRequest>();
    if (headerValue(req, CSRF_HEADER) !== CSRF_HEADER_VALUE) {
      throw DomainError.permissionDenied(`This call needs the header X-Requested-With: ${CSRF_HEADER_VALUE}.`, Reason.CSRF_HEADER_MISSING);
    }
    const origin = headerValue(req, 'origin');
    if (origin === undefined || origin === this.publicOrigin || isOwnOrigin(origin, headerValue(req, 'host'))) return true;
    if (await this.origins.allows(origin)) return true;
    throw DomainError.permissionDenied('This call is not allowed from that origin.', Reason.CSRF_ORIGIN_NOT_ALLOWED);
  }
}

/** The Origin names the host the request was sent to (a same-origin call of the page the service served). */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}
