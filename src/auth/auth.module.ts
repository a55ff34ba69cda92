import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { SettingsModule } from '../settings/settings.module';
import { UserModule } from '../user/user.module';
import { AuthFlowService } from './auth-flow.service';
import { AuthTransactionRepository } from './auth-transaction.repository';
import { AuthController } from './auth.controller';

/** Sign-in flows: authentication transactions and their steps. */
@Module({
  imports: [KeysModule, SettingsModule, UserModule],
  controllers: [AuthController],
  providers: [AuthFlowService, AuthTransactionRepository],
  exports: [AuthFlowService, AuthTransactionRepository],
})
export class AuthModule {}
