import { Module } from '@nestjs/common';
import { AuthTransactionRepository } from './auth-transaction.repository';
import { FactorRegistry } from './factor-registry';
import { SignInPolicies } from './sign-in-policies';

/**
 * What a factor's module needs to plug into the sign-in engine: the registry its
 * strategies register with, and the transactions they keep their pending state
 * on; and the sign-in policies extension modules register. It imports nothing,
 * so feature modules import it without a cycle.
 */
@Module({
  providers: [FactorRegistry, AuthTransactionRepository, SignInPolicies],
  exports: [FactorRegistry, AuthTransactionRepository, SignInPolicies],
})
export class FactorRegistryModule {}
