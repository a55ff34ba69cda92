import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AccessTokenService } from './access-token.service';
import { DiscoveryController } from './discovery.controller';
import { JwksController } from './jwks.controller';
import { KeyService } from './key.service';
import { AccessTokenVerifier } from './access-token-verifier';
import { UserModule } from '../user/user.module';

/** Signing keys, the JWK Set, and access tokens: signing and complete verification. */
@Module({
  imports: [JwtModule.register({}), UserModule],
  controllers: [JwksController, DiscoveryController],
  providers: [KeyService, AccessTokenService, AccessTokenVerifier],
  exports: [KeyService, AccessTokenService, AccessTokenVerifier],
})
export class KeysModule {}
