import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { KeysModule } from '../keys/keys.module';
import { ExtensionHost } from './extension-host';

/**
 * The seams extension modules plug into (docs/extending.md): an extension's own
 * module imports this one (as `api.ExtensionsModule`) to inject ExtensionHost.
 */
@Module({
  imports: [AuthModule, KeysModule, EventsModule],
  providers: [ExtensionHost],
  exports: [ExtensionHost],
})
export class ExtensionsModule {}
