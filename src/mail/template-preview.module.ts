import { Module } from '@nestjs/common';
import { MailModule } from './mail.module';
import { TemplatePreviewController } from './template-preview.controller';

/**
 * The template preview: renders a sector's messages with the mail module's own
 * renderer. Its own module because the mail module depends (through sectors) on
 * the settings module, so settings cannot import mail.
 */
@Module({
  imports: [MailModule],
  controllers: [TemplatePreviewController],
})
export class TemplatePreviewModule {}
