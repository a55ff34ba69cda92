import { Module } from '@nestjs/common';
import { IntrospectionController } from './introspection.controller';
import { IntrospectionService } from './introspection.service';

@Module({ controllers: [IntrospectionController], providers: [IntrospectionService] })
export class IntrospectionModule {}
