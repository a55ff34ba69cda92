import { Injectable } from '@nestjs/common';
import type { TargetUserRef } from '../settings/request-targets';
import type { Principal } from '../access/principal';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { accountRef } from '../throttle/throttle-policy';
import { ThrottleService } from '../throttle/throttle.service';
import { PasswordHasher } from './password-hasher';
import { UserRepository } from './user.repository';

/** How recent a sign-in must be to count as re-authentication (docs/security.md, Step-up). */
const STEP_UP_WINDOW_SECONDS = 300;

/** What a request may carry to prove the user is present now, when their sign-in is older than the window. */
export interface StepUpProof {
  currentPassword?: string;
}

/**
 * Step-up: the sensitive changes a user makes to their own account (email or
 * phone, adding or removing a passkey or a second factor) need more than a bearer
 * token, which may have been stolen. They need a recent authentication: the
 * access token's `auth_time` within five minutes (any sign-in counts, so users
 * without a password sign in again with a passkey, a code or a provider), or the
 * current password in the request, counted by the password throttle like a
 * sign-in. A transactionID proof never suffices. Admins acting on another user's
 * account and API tokens are governed by the role matrix, not by this rule.
 */
@Injectable()
export class StepUpService {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly throttle: ThrottleService,
  ) {}

  /** Is the caller acting on their own account (by token or transaction proof)? */
  static isSelf(caller: Principal, targetUserId: string): boolean {
    return (caller.kind === 'user' || caller.kind === 'transaction') && caller.userId === targetUserId;
  }

  /**
   * Requires a recent authentication when `caller` acts on their own account
   * `target`; does nothing for anyone else. REAUTHENTICATION_REQUIRED (403) when
   * neither proof is there; INVALID_CREDENTIALS (401) for a wrong current password.
   */
  async require(caller: Principal, target: TargetUserRef, proof: StepUpProof, clientIp: string, what: string): Promise<void> {
    if (!StepUpService.isSelf(caller, target.id)) return;
    if (caller.kind === 'transaction') {
      throw required(`A transactionID proof cannot ${what}; sign in and use the access token.`);
    }
    if (caller.kind === 'user' && caller.authTime !== undefined && Math.floor(Date.now() / 1000) - caller.authTime <= STEP_UP_WINDOW_SECONDS) return;
    if (proof.currentPassword === undefined) {
      throw required(`To ${what}, sign in again (within ${STEP_UP_WINDOW_SECONDS / 60} minutes) or send currentPassword.`);
    }
    await this.verifyPassword(target, proof.currentPassword, clientIp);
  }

  /**
   * Checks the user's current password, counted by the password throttle like a
   * sign-in (a user without a password always fails, after the same work).
   * INVALID_CREDENTIALS when wrong.
   */
  async verifyPassword(target: TargetUserRef, currentPassword: string, clientIp: string): Promise<void> {
    const user = await this.users.findById(target.scope.db, target.id);
    if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
    const attempt = { tenantId: target.scope.route.tenant.id, sectorId: user.sectorId, account: accountRef(user.id, user.username), clientIp };
    const reservation = await this.throttle.reserve(attempt, 'password');
    if (!(await this.hasher.verifyOrWaste(currentPassword, user.passwordHash))) {
      throw DomainError.unauthenticated(Reason.INVALID_CREDENTIALS, 'The current password is incorrect.');
    }
    await reservation.succeeded();
  }
}

function required(message: string): DomainError {
  return new DomainError(ErrorCode.PERMISSION_DENIED, Reason.REAUTHENTICATION_REQUIRED, message, {
    metadata: { maxAgeSeconds: String(STEP_UP_WINDOW_SECONDS) },
  });
}
