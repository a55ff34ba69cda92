import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { IntrospectionController } from './introspection.controller';
import { IntrospectionService } from './introspection.service';

/** Operation 20: backends validate access tokens of their tenant. */
@Module({ imports: [KeysModule], controllers: [IntrospectionController], providers: [IntrospectionService] })
export class IntrospectionModule {}
