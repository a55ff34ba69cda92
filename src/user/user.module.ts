import { Module } from '@nestjs/common';
import { PasswordHasher } from './password-hasher';
import { UserRepository } from './user.repository';

/** Users of a sector. (Operations 6–8 and user administration build on this.) */
@Module({
  providers: [UserRepository, PasswordHasher],
  exports: [UserRepository, PasswordHasher],
})
export class UserModule {}
