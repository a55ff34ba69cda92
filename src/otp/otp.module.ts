import { Module } from '@nestjs/common';
import { MailModule } from '../mail/mail.module';
import { SectorModule } from '../sector/sector.module';
import { SettingsModule } from '../settings/settings.module';
import { ThrottleModule } from '../throttle/throttle.module';
import { UserModule } from '../user/user.module';
import { OtpController } from './otp.controller';
import { OtpRepository } from './otp.repository';
import { OtpService } from './otp.service';

/** One-time-code factors (email, SMS, TOTP) of users. */
@Module({
  imports: [UserModule, SettingsModule, SectorModule, MailModule, ThrottleModule],
  controllers: [OtpController],
  providers: [OtpRepository, OtpService],
  exports: [OtpRepository, OtpService],
})
export class OtpModule {}
