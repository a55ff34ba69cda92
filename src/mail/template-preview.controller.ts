import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../access/decorators';
import { TargetScope } from '../settings/request-targets';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { SectorMessages } from './sector-messages';
import { PreviewTemplateDto, TemplatePreviewResponse } from './dto/template-preview.dto';
import { SectorScope } from '../settings/sector-scope';

@ApiTags('Sector settings')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/sectors/:sectorID/templates')
export class TemplatePreviewController {
  constructor(private readonly messages: SectorMessages) {}

  @Post('preview')
  @HttpCode(200)
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Render a message template with sample values (absent templates: the sector’s, or the built-in default)' })
  @ApiOkResponse({ type: TemplatePreviewResponse })
  async preview(@TargetScope() scope: SectorScope, @Body() body: PreviewTemplateDto): Promise<TemplatePreviewResponse> {
    const { kind, subject, text, html, sms, language } = body;
    return this.messages.preview(scope, kind, { subject, text, html, sms }, language);
  }
}
