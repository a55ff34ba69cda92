import { Controller, Get, Header, Req, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { createReadStream } from 'node:fs';
import { Public } from '../access/decorators';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import type { IncomingRequest } from '../common/http/request';
import { ConsoleFiles } from './console-files';

const ASSETS_PREFIX = '/console/assets/';

function notFound(): DomainError {
  return DomainError.notFound(Reason.ROUTE_NOT_FOUND, 'No such file.');
}

/**
 * Serves the browser app built into dist/console: hashed assets under
 * /console/assets/ cached for a year (a new build has new names), and index.html
 * for /console, /account and every path below them (the SPA routes in the
 * browser), for the same pages of a tenant's sector under /t/{tenant}/[{sector}/]
 * (the SPA reads the tenant and sector from the address), and for the older mail-link pages (/invite, /reset-password,
 * /magic-link, /verify-email, /confirm-email), revalidated on every load. Plain controller routes, so both HTTP
 * adapters serve it alike; /api is untouched.
 */
@ApiExcludeController()
@Controller()
export class ConsoleController {
  constructor(private readonly files: ConsoleFiles) {}

  @Public()
  @Get('console/assets/*path')
  @Header('Cache-Control', 'public, max-age=31536000, immutable')
  asset(@Req() req: IncomingRequest): StreamableFile {
    const path = new URL(req.originalUrl ?? req.url ?? '/', 'http://x').pathname;
    const file = path.toLowerCase().startsWith(ASSETS_PREFIX) ? this.files.asset(path.slice(ASSETS_PREFIX.length)) : undefined;
    if (!file) throw notFound();
    return new StreamableFile(createReadStream(file.path), { type: file.type, length: file.size });
  }

  @Public()
  // Also the service's default mail links (when a sector sets no MagicLinkURL): the app's link page answers them.
  @Get(['console', 'console/*path', 'account', 'account/*path', 't/*path', 'invite', 'reset-password', 'magic-link', 'verify-email', 'confirm-email'])
  @Header('Cache-Control', 'no-cache')
  page(): StreamableFile {
    const html = this.files.indexHtml();
    if (!html) throw DomainError.notFound(Reason.ROUTE_NOT_FOUND, 'The console is not built: run `npm run build`.');
    return new StreamableFile(html, { type: 'text/html; charset=utf-8', length: html.length });
  }
}
