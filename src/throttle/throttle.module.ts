import { Module } from '@nestjs/common';
import { ThrottleRepository } from './throttle.repository';
import { ThrottleService } from './throttle.service';

/** Attempt throttling for passwords and one-time codes; sign-in flows import it. */
@Module({
  providers: [ThrottleService, ThrottleRepository],
  exports: [ThrottleService],
})
export class ThrottleModule {}
