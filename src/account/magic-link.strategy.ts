import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountLinkRepository } from '../user/account-link.repository';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { UserRepository } from '../user/user.repository';
import { FactorRegistry } from '../auth/engine/factor-registry';
import { FactorStrategy, StepState, Verdict } from '../auth/engine/factor-strategy';

/** The proof of a magic link: the hash of the link's token (the account is known from the link before the step). */
export interface MagicLinkProof {
  tokenHash: string;
}

/**
 * Magic-link sign-in: a single-use link mailed to the user's address is a first
 * factor (MAGIC_LINK), like a password — where MFA applies the policy asks for the
 * second factor after it. The link is used (deleted) by the step that accepts it,
 * only while unexpired and only for the user it names, so of concurrent uses
 * exactly one signs in. A link mailed to an address that is no longer the user's
 * proves nothing (the change also deletes it); otherwise it proves the address,
 * which is marked verified.
 */
@Injectable()
export class MagicLinkStrategy implements FactorStrategy<MagicLinkProof>, OnModuleInit {
  readonly id = 'magic-link';
  readonly assurance = { factor: 'MAGIC_LINK', kind: 'link', secondFactor: false, satisfiesMfaAlone: false, amr: ['otp'] } as const;
  readonly guess = 'code' as const;
  readonly spendsAttempt = false;

  constructor(
    private readonly registry: FactorRegistry,
    private readonly links: AccountLinkRepository,
    private readonly users: UserRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async verify(state: StepState, proof: MagicLinkProof): Promise<Verdict> {
    if (!state.user) return { ok: false };
    const link = await this.links.consume(state.scope.db, proof.tokenHash, 'magic-link', state.user.id);
    if (!link || link.email.toLowerCase() !== state.user.email.toLowerCase()) return { ok: false };
    const userId = state.user.id;
    return {
      ok: true,
      afterRecorded: async () => {
        await this.users.markEmailVerified(state.scope.db, userId, link.email);
      },
    };
  }

  wrongProof(): DomainError {
    return DomainError.notFound(Reason.LINK_INVALID, 'The link is invalid or was already used.');
  }
}
