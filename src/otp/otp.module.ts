import { Module } from '@nestjs/common';
import { FactorRegistryModule } from '../auth/engine/factor-registry.module';
import { MailModule } from '../mail/mail.module';
import { SectorModule } from '../sector/sector.module';
import { SettingsModule } from '../settings/settings.module';
import { ThrottleModule } from '../throttle/throttle.module';
import { UserModule } from '../user/user.module';
import { OtpController } from './otp.controller';
import { OtpRepository } from './otp.repository';
import { OtpService } from './otp.service';
import { EmailEnrollmentStrategy } from './email-enrollment.strategy';
import { SentCodeStrategy } from './sent-code.strategy';
import { TotpStrategy } from './totp.strategy';
import { AuditModule } from '../audit/audit.module';

/**
 * One-time-code factors (email, SMS, TOTP) of users, and their sign-in
 * strategies (a sent code, an authenticator-app code, email enrollment), which
 * register with the sign-in engine's factor registry.
 */
@Module({
  imports: [AuditModule, FactorRegistryModule, UserModule, SettingsModule, SectorModule, MailModule, ThrottleModule],
  controllers: [OtpController],
  providers: [OtpRepository, OtpService, SentCodeStrategy, TotpStrategy, EmailEnrollmentStrategy],
  exports: [OtpRepository, OtpService, SentCodeStrategy, TotpStrategy, EmailEnrollmentStrategy],
})
export class OtpModule {}
