import { ApiProperty } from '@nestjs/swagger';
import { IsBase64, IsString, MaxLength } from 'class-validator';

/** Body of PUT /api/v1/sectors/{sectorID}/branding/{asset}. */
export class UploadBrandAssetDto {
  @ApiProperty({
    description:
      'The image, base64-encoded. Its type is read from its bytes: a PNG, JPEG, WebP or GIF image (an ICO too for the favicon), never SVG. The logo at most 256 KiB and 2048×2048 pixels, the favicon at most 64 KiB and 512×512.',
  })
  @IsString()
  // 256 KiB of image in base64, with room for line breaks.
  @MaxLength(360_000, { message: 'must be at most 256 KiB of image' })
  @IsBase64({}, { message: 'must be the image in base64' })
  data: string;
}

export class BrandAssetResponse {
  @ApiProperty() sectorID: string;
  @ApiProperty({ enum: ['logo', 'favicon'] }) asset: string;
  @ApiProperty({ description: 'The type read from the bytes.', example: 'image/png' }) contentType: string;
  @ApiProperty({ type: 'string', format: 'int64', example: '5120' }) bytes: string;
  @ApiProperty({ example: 320 }) width: number;
  @ApiProperty({ example: 80 }) height: number;
  @ApiProperty({ description: 'Its public address, the same as the settings’ BrandLogoURL or BrandFaviconURL; a new image gets a new one.' }) url: string;
}

export class DeleteBrandAssetResponse {}
