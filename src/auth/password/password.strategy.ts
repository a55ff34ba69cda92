import { Injectable, OnModuleInit } from '@nestjs/common';
import { DomainError } from '../../common/errors/domain-error';
import { Reason } from '../../common/errors/error-codes';
import { PasswordHasher } from '../../user/password-hasher';
import { PASSWORD_MAX_BYTES } from '../../user/password-policy';
import { FactorRegistry } from '../engine/factor-registry';
import { FactorStrategy, StepState, Verdict } from '../engine/factor-strategy';

/**
 * The password factor (operation 11). An unknown user, a user without a password
 * and a password over 72 bytes all spend one bcrypt comparison against a dummy
 * hash and answer exactly like a wrong password. bcrypt runs on low-priority worker threads (PasswordHasher).
 */
@Injectable()
export class PasswordStrategy implements FactorStrategy<string>, OnModuleInit {
  static readonly ID = 'password';
  readonly id = PasswordStrategy.ID;
  readonly assurance = { factor: 'PASSWORD', kind: 'knowledge', secondFactor: false, satisfiesMfaAlone: false, amr: ['pwd'] } as const;
  readonly guess = 'password' as const;
  readonly spendsAttempt = false;

  constructor(
    private readonly registry: FactorRegistry,
    private readonly hasher: PasswordHasher,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async verify(state: StepState, password: string): Promise<Verdict> {
    const tooLong = Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES;
    const ok = await this.hasher.verifyOrWaste(password, tooLong ? null : state.user?.passwordHash);
    return { ok };
  }

  wrongProof(): DomainError {
    return DomainError.unauthenticated(Reason.INVALID_CREDENTIALS, 'The username or password is incorrect.');
  }
}
