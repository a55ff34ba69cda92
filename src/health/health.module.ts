import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { DrainMiddleware, Lifecycle } from './lifecycle';

/** Liveness, readiness, and the drain on shutdown. */
@Module({ controllers: [HealthController], providers: [Lifecycle, DrainMiddleware], exports: [Lifecycle, DrainMiddleware] })
export class HealthModule {}
