import { Body, Controller, Delete, Get, Header, HttpCode, Param, Put, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Authenticated, Public } from '../access/decorators';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { TargetScope } from '../settings/request-targets';
import { SectorScope } from '../settings/sector-scope';
import { BrandAssetResponse, DeleteBrandAssetResponse, UploadBrandAssetDto } from './dto/brand-asset.dto';
import { BrandingService } from './branding.service';

const ASSET_PARAM = { name: 'asset', enum: ['logo', 'favicon'] };

@ApiTags('Branding')
@ApiErrors()
@Controller()
export class BrandingController {
  constructor(private readonly branding: BrandingService) {}

  @Put('api/v1/sectors/:sectorID/branding/:asset')
  @HttpCode(200)
  @ApiBearerAuth()
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiParam(ASSET_PARAM)
  @ApiOperation({ summary: "Upload the sector's logo or favicon (replacing the current one); its address is then in the settings' BrandLogoURL or BrandFaviconURL" })
  @ApiOkResponse({ type: BrandAssetResponse })
  upload(@TargetScope() scope: SectorScope, @Param('asset') asset: string, @Body() body: UploadBrandAssetDto): Promise<BrandAssetResponse> {
    return this.branding.upload(scope, asset, body.data);
  }

  @Delete('api/v1/sectors/:sectorID/branding/:asset')
  @ApiBearerAuth()
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiParam(ASSET_PARAM)
  @ApiOperation({ summary: "Remove the sector's logo or favicon (its pages show the built-in ones again)" })
  @ApiOkResponse({ type: DeleteBrandAssetResponse })
  async remove(@TargetScope() scope: SectorScope, @Param('asset') asset: string): Promise<DeleteBrandAssetResponse> {
    await this.branding.remove(scope, asset);
    return {};
  }

  @Public()
  @Get('api/v1/branding/:sectorID/:asset/:version')
  @ApiParam(ASSET_PARAM)
  @ApiProduces('image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/x-icon')
  @ApiOperation({
    summary: "A sector's logo or favicon, for its pages and mails (no credentials). The address changes with the image, so it may be cached for good; an old one answers 404.",
  })
  @ApiOkResponse({ description: 'The image, of the type read from its bytes.' })
  @Header('Cache-Control', 'public, max-age=31536000, immutable')
  @Header('Content-Security-Policy', "default-src 'none'")
  async read(@Param('sectorID') sectorID: string, @Param('asset') asset: string, @Param('version') version: string): Promise<StreamableFile> {
    const image = await this.branding.read(sectorID, asset, version);
    return new StreamableFile(image.bytes, { type: image.contentType, length: image.bytes.length });
  }
}
