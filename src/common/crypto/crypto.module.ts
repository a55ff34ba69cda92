import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { SecretBox } from './secret-box';

/** The one SecretBox (keys derived from the configured master keys, newest first) for every module that seals or MACs secrets. */
@Global()
@Module({
  providers: [{ provide: SecretBox, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new SecretBox(config.masterKeys) }],
  exports: [SecretBox],
})
export class CryptoModule {}
