import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { MESSAGE_KINDS, type MessageKind } from '../sector-messages';
import { IsHandlebarsTemplate } from '../../settings/settings.validation';
import { SMS_MAX, SUBJECT_MAX, TEMPLATE_MAX } from '../../settings/dto/sector-settings.dto';
import { Language, SHIPPED_LANGUAGES } from '../../common/languages';

/**
 * Body of POST /api/v1/sectors/{sectorID}/templates/preview: the message kind and
 * the templates to try; an absent one is the sector's current template (or the
 * built-in default when that is empty), an empty one the built-in default.
 */
export class PreviewTemplateDto {
  @ApiProperty({ enum: MESSAGE_KINDS, description: 'The message: invite, code (one-time code, mail and SMS), passwordReset; the others always use the built-in templates unless given here.' })
  @IsIn(MESSAGE_KINDS)
  kind: MessageKind;

  @ApiPropertyOptional({ description: 'Subject template (Handlebars).' })
  @IsOptional() @IsString() @MaxLength(SUBJECT_MAX) @IsHandlebarsTemplate()
  subject?: string;

  @ApiPropertyOptional({ description: 'Plain-text body template (Handlebars; values are not escaped).' })
  @IsOptional() @IsString() @MaxLength(TEMPLATE_MAX) @IsHandlebarsTemplate()
  text?: string;

  @ApiPropertyOptional({ description: 'HTML body template (Handlebars; values are HTML-escaped).' })
  @IsOptional() @IsString() @MaxLength(TEMPLATE_MAX) @IsHandlebarsTemplate()
  html?: string;

  @ApiPropertyOptional({ description: 'SMS template (Handlebars); only for kind "code".' })
  @IsOptional() @IsString() @MaxLength(SMS_MAX) @IsHandlebarsTemplate()
  sms?: string;

  @ApiPropertyOptional({ enum: SHIPPED_LANGUAGES, description: "The language to render in: the sector's templates of that language (LocalizedTemplates, or the top-level ones for DefaultLanguage) and its built-in texts. Default: the sector's DefaultLanguage." })
  @IsOptional() @IsIn(SHIPPED_LANGUAGES, { message: `must be one of ${SHIPPED_LANGUAGES.join(', ')}` })
  language?: Language;
}

/** The message rendered with sample values, exactly as the service would send it. */
export class TemplatePreviewResponse {
  @ApiProperty({ description: 'The subject line (line breaks become spaces).' }) subject: string;
  @ApiProperty({ description: 'The plain-text body.' }) text: string;
  @ApiProperty({ description: 'The HTML body (values HTML-escaped).' }) html: string;
  @ApiPropertyOptional({ description: 'The SMS text (kind "code" only).' }) sms?: string;
}
