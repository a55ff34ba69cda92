import { MailerModule, MailerOptions } from '@nestjs-modules/mailer';
import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MailService } from './mail.service';
import { OutboxDelivery } from './outbox-delivery';
import { MailQueue } from './mail-queue';
import { OutboxRepository } from './outbox.repository';
import { OutboxModule } from '../outbox/outbox.module';
import { SectorMessages } from './sector-messages';
import { SectorModule } from '../sector/sector.module';

/** SMTP time-outs that keep one delivery well inside the outbox lease. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * Mail and SMS: templates (mail-templates.ts), the per-tenant outbox, and the
 * worker that delivers it. Other modules import this module and use MailService.
 */
@Module({
  imports: [
    SectorModule,
    OutboxModule,
    MailerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): MailerOptions => ({
        // Without SMTP_URL the stream transport renders the RFC 822 message, which
        // the delivery writes to DATA_DIR/outbox.
        transport: config.smtpUrl ? { url: config.smtpUrl, ...SMTP_TIMEOUTS } : { streamTransport: true as const, buffer: true },
        // nodemailer merges these into every message; its 10.x typings of the
        // transport options (which the mailer module reuses here) omit message fields.
        defaults: { from: config.mailFrom } as MailerOptions['defaults'],
      }),
    }),
  ],
  providers: [OutboxRepository, OutboxDelivery, MailQueue, MailService, SectorMessages],
  exports: [MailService, SectorMessages],
})
export class MailModule {}
