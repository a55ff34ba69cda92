import { Module } from '@nestjs/common';
import { HealthModule } from '../health/health.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { KeysModule } from '../keys/keys.module';
import { IntrospectionFastPath } from './introspection-fast-path';
import { IntrospectionController } from './introspection.controller';
import { IntrospectionService } from './introspection.service';

/** Operation 20: backends validate access tokens of their tenant. */
@Module({ imports: [KeysModule, CredentialsModule, HealthModule], controllers: [IntrospectionController], providers: [IntrospectionService, IntrospectionFastPath] })
export class IntrospectionModule {}
