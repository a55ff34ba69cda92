import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AccessTokenService } from './access-token.service';
import { DiscoveryController } from './discovery.controller';
import { JwksController } from './jwks.controller';
import { KeyService } from './key.service';
import { TokenClaims } from './token-claims';
import { AuditModule } from '../audit/audit.module';

/**
 * Signing keys, the JWK Set, and access tokens: signing and signature checks (the user-state check is AccessTokenVerifier's, src/credentials),
 * and the claims extension modules add to them (TokenClaims).
 */
@Module({
  imports: [AuditModule, JwtModule.register({})],
  controllers: [JwksController, DiscoveryController],
  providers: [KeyService, AccessTokenService, TokenClaims],
  exports: [KeyService, AccessTokenService, TokenClaims],
})
export class KeysModule {}
