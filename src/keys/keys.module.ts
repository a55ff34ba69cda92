import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AccessTokenService } from './access-token.service';
import { JwksController } from './jwks.controller';
import { KeyService } from './key.service';

/** Signing keys, the JWK Set, and access-token signing and verification. */
@Module({
  imports: [JwtModule.register({})],
  controllers: [JwksController],
  providers: [KeyService, AccessTokenService],
  exports: [KeyService, AccessTokenService],
})
export class KeysModule {}
