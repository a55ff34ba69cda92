import { Module } from '@nestjs/common';
import { ConsoleController } from './console.controller';
import { ConsoleFiles } from './console-files';

/**
 * The admin console and the account page (the SPA under console/, built to
 * dist/console) served by the service itself at /console and /account.
 */
@Module({
  controllers: [ConsoleController],
  providers: [{ provide: ConsoleFiles, useFactory: () => new ConsoleFiles() }],
  exports: [ConsoleFiles],
})
export class ConsoleModule {}
