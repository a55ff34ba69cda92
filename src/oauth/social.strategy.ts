import { Injectable, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { AuditService } from '../audit/audit.service';
import { LinkedIdentityRepository } from './linked-identity.repository';
import { UserEntity } from '../user/user.entity';
import { UserRepository } from '../user/user.repository';
import { FactorRegistry } from '../auth/engine/factor-registry';
import { FactorStrategy, Refusal, StepState, Verdict } from '../auth/engine/factor-strategy';

/** What a social provider vouched for, after the service verified its answer (ID token, or the provider's user API). */
export interface SocialProof {
  provider: string;
  /** The provider's stable subject (`sub`, GitHub's numeric user id). */
  subject: string;
  /** The email the provider reported ('' when none). */
  email: string;
  /** Whether the provider says the email is verified. */
  emailVerified: boolean;
  name: string;
}

/** A verified provider answer with the issuer of the provider as configured now (the key of its links, with the subject). */
export type SocialIdentity = SocialProof & { issuer: string };

/**
 * A social login (an external identity provider's verified answer) as a first
 * factor, like a password: the flow's transaction then continues with a second
 * factor where the sector or the user requires one. The proof is checked before
 * it gets here (by the OAuth callback: state, PKCE, ID token or provider API);
 * this strategy finds the user: by the linked identity (issuer + subject),
 * else by the email only when the provider says it is verified AND the local
 * account's email is verified too (and links it; an unverified local address
 * may have been registered by someone else, who would keep their password —
 * SOCIAL_LINK_REQUIRES_VERIFIED_EMAIL, link from the account page instead),
 * else — where `SelfSignUpAllowed` and the address is free — creates the user
 * with the verified email.
 */
@Injectable()
export class SocialStrategy implements FactorStrategy<SocialIdentity>, OnModuleInit {
  readonly id = 'social';
  readonly assurance = { factor: 'SOCIAL', kind: 'federated', secondFactor: false, satisfiesMfaAlone: false, amr: ['fed'] } as const;
  readonly guess = 'code' as const;
  readonly spendsAttempt = false;
  private readonly identities = new LinkedIdentityRepository();

  constructor(
    private readonly registry: FactorRegistry,
    private readonly users: UserRepository,
    private readonly audit: AuditService,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async verify(state: StepState, proof: SocialIdentity): Promise<Verdict> {
    const { scope } = state;
    const sectorId = scope.route.sectorId;
    const linked = await this.identities.findBySubject(scope.db, sectorId, proof.issuer, proof.subject);
    if (linked) {
      const user = await this.users.findById(scope.db, linked.userId);
      if (!user || user.sectorId !== sectorId) return refuse(Reason.INVALID_CREDENTIALS, 'The linked user no longer exists.');
      state.user = user;
      return { ok: true, afterRecorded: () => this.identities.touch(scope.db, linked.id) };
    }
    const email = proof.email.trim();
    if (email === '' || !proof.emailVerified) {
      return refuse(Reason.SOCIAL_EMAIL_UNVERIFIED, 'The provider did not report a verified email, and no identity is linked to this account.');
    }
    const byEmail = await this.findByEmail(state, email);
    if (byEmail) {
      if (!byEmail.emailVerified) {
        return refuse(
          Reason.SOCIAL_LINK_REQUIRES_VERIFIED_EMAIL,
          'An account with this email exists; sign in to it and link the provider from your account page.',
        );
      }
      state.user = byEmail;
      return { ok: true, afterRecorded: async () => void (await this.identities.link(scope.db, sectorId, byEmail.id, { ...proof, email })) };
    }
    const settings = await scope.settings();
    if (!settings.selfSignUpAllowed) return refuse(Reason.SIGNUP_NOT_ALLOWED, 'No user of this sector matches, and self sign-up is not allowed.');
    const created = await this.createUser(state, proof, email);
    if (!created) return refuse(Reason.SIGNUP_NOT_ALLOWED, 'The account could not be created (its email or username is taken).');
    state.user = created;
    return { ok: true };
  }

  wrongProof(_attemptsLeft?: number, refusal?: Refusal): DomainError {
    const code = refusal?.reason === Reason.INVALID_CREDENTIALS ? ErrorCode.UNAUTHENTICATED : ErrorCode.PERMISSION_DENIED;
    return new DomainError(code, refusal?.reason ?? Reason.INVALID_CREDENTIALS, refusal?.message ?? 'The social sign-in was refused.', { metadata: refusal?.metadata });
  }

  private async findByEmail(state: StepState, email: string): Promise<UserEntity | null> {
    const [row] = await state.scope.db.rows<{ id: string }>(`SELECT id FROM users WHERE sector_id = $1 AND email <> '' AND lower(email) = lower($2) LIMIT 1`, [
      state.scope.route.sectorId,
      email,
    ]);
    return row ? this.users.findById(state.scope.db, row.id) : null;
  }

  /**
   * Creates an ordinary user (no password; email verified as the provider says) and links the
   * identity, in one transaction with its `user.created` audit event (a self sign-up: no caller),
   * so webhooks and the sector's sign-up figures see social sign-ups like any other.
   */
  private async createUser(state: StepState, proof: SocialIdentity, email: string): Promise<UserEntity | null> {
    const sectorId = state.scope.route.sectorId;
    return state.scope.db.transaction(async (tx) => {
      await this.users.lockSectorLogins(tx, sectorId);
      if (await this.users.loginTaken(tx, sectorId, [email])) return null;
      const user = tx.manager.getRepository(UserEntity).create({
        id: randomUUID(),
        sectorId,
        username: email,
        email,
        emailVerified: true,
        name: proof.name.slice(0, 200),
        passwordHash: null,
        isAdmin: false,
      });
      await this.users.insert(tx, user);
      await this.identities.link(tx, sectorId, user.id, { ...proof, email });
      await this.audit.record(tx, {
        type: 'user.created',
        sectorId,
        target: { kind: 'user', id: user.id },
        details: { isAdmin: false, invited: false, provider: proof.provider },
      });
      return this.users.findById(tx, user.id);
    });
  }
}

function refuse(reason: string, message: string): Verdict {
  return { ok: false, refusal: { reason, message } };
}
