import { Body, Controller, Get, Header, HttpCode, Param, Post, Req, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, Public } from '../access/decorators';
import { Principal } from '../access/principal';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { ApiErrors } from '../common/http/api-errors';
import { headerValue, IncomingRequest, nodeRequest } from '../common/http/request';
import { ConsoleFiles } from '../console/console-files';
import { CompleteOidcInteractionDto, CompleteOidcInteractionResponse, OidcInteractionResponse } from './dto/oidc-interaction.dto';
import { OidcInteractionService } from './oidc-interaction.service';

/** A browser opening the page (its navigations ask for HTML first), not the page asking for the details. */
function wantsPage(req: IncomingRequest): boolean {
  return /^\s*text\/html/i.test(headerValue(req, 'accept') ?? '');
}

/**
 * OpenID Provider sign-in requests (interactions), for the service's sign-in page:
 * the provider sends the browser to `/api/v1/oidc/interactions/{id}?interaction={id}`,
 * where a browser gets the sign-in page (the console app) and the page gets the
 * request's details; the page signs the user in through the sign-in API and
 * finishes the request with the access token. The provider's interaction cookie is
 * scoped to this path, so only the browser that started a request can finish it.
 */
@ApiTags('OpenID Provider')
@ApiErrors()
@Controller('api/v1/oidc/interactions')
export class OidcInteractionController {
  constructor(
    private readonly interactions: OidcInteractionService,
    private readonly files: ConsoleFiles,
  ) {}

  @Public()
  @Get(':interactionID')
  @Header('Vary', 'Accept')
  @ApiOperation({ summary: 'What a sign-in request of an app is about: the app, the sector, the scopes, what the provider waits for (public)' })
  @ApiProduces('application/json', 'text/html')
  @ApiOkResponse({ type: OidcInteractionResponse, description: 'The details; a browser navigation (Accept: text/html) gets the sign-in page instead.' })
  async details(@Param('interactionID') id: string, @Req() req: IncomingRequest): Promise<OidcInteractionResponse | StreamableFile> {
    if (wantsPage(req)) {
      const html = this.files.indexHtml();
      if (!html) throw DomainError.notFound(Reason.ROUTE_NOT_FOUND, 'The sign-in page is not built: run `npm run build`.');
      return new StreamableFile(html, { type: 'text/html; charset=utf-8', length: html.length });
    }
    return this.interactions.details(id);
  }

  @Post(':interactionID/complete')
  @HttpCode(200)
  @ApiBearerAuth()
  @Authenticated()
  @ApiOperation({
    summary:
      'Finish a sign-in request of an app with the access token of the user who signed in (a user of the request’s sector, in the browser that started it); answers where the browser goes next',
  })
  @ApiOkResponse({ type: CompleteOidcInteractionResponse })
  complete(
    @Param('interactionID') id: string,
    @CurrentPrincipal() caller: Principal,
    @Req() req: IncomingRequest,
    @Body() body: CompleteOidcInteractionDto,
  ): Promise<CompleteOidcInteractionResponse> {
    return this.interactions.complete(id, caller, nodeRequest(req), body?.consent === true);
  }

  @Public()
  @Post(':interactionID/deny')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Decline a sign-in request of an app (in the browser that started it; no sign-in needed): the app’s redirect URI receives error=access_denied',
  })
  @ApiOkResponse({ type: CompleteOidcInteractionResponse })
  deny(@Param('interactionID') id: string, @Req() req: IncomingRequest): Promise<CompleteOidcInteractionResponse> {
    return this.interactions.deny(id, nodeRequest(req));
  }
}
