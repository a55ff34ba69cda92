import { Inject, Injectable, Logger } from '@nestjs/common';
import { callExtensionHook, extensionHookFailed, HookUser } from '../../common/extensions/extension-hook';
import { DomainError } from '../../common/errors/domain-error';
import { Reason } from '../../common/errors/error-codes';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { Factor } from './auth-policy';

/** What a sign-in policy is told about a sign-in that is about to succeed. */
export interface SignInPolicyContext {
  tenantID: string;
  sectorID: string;
  user: HookUser;
  /** The factors the transaction has satisfied, the one just proven included (`PASSWORD`, `OTP`, `WEBAUTHN`, `SOCIAL`, `MAGIC_LINK`, …). */
  factors: readonly Factor[];
  /** How they authenticated the user, as RFC 8176 method references (`pwd`, `otp`, `hwk`, `fed`, `mfa`). */
  amr: readonly string[];
  /** The client's address, as the throttle counts it (TRUST_PROXY applies); '' when unknown. */
  clientIp: string;
  /** The request's User-Agent header ('' when none). */
  userAgent: string;
}

/**
 * A policy's answer: let the sign-in succeed; refuse it (the caller sees
 * PERMISSION_DENIED / SIGN_IN_DENIED_BY_POLICY with `message`); or ask for a
 * second factor first, as when the sector required MFA (the transaction answers
 * MFA_REQUIRED, or MFA_ENROLLMENT_REQUIRED when the user has none).
 */
export type SignInDecision = { decision: 'allow' } | { decision: 'deny'; message: string } | { decision: 'require_mfa' };

/** An extension module's sign-in policy, asked before a sign-in transaction succeeds. */
export type SignInPolicy = (context: SignInPolicyContext) => SignInDecision | Promise<SignInDecision>;

/** The longest refusal message a policy may give (longer ones are cut). */
const MESSAGE_MAX = 300;
const DEFAULT_MESSAGE = 'A sign-in policy refused this sign-in.';

interface Registered {
  name: string;
  policy: SignInPolicy;
}

/**
 * The sign-in policies of extension modules (docs/extending.md). The engine asks
 * them only when a transaction is about to succeed and only when there are any,
 * one after another in registration order: the first `deny` refuses; else any
 * `require_mfa` asks for a second factor; else the sign-in goes on. A policy that
 * throws, answers late (EXTENSION_HOOK_TIMEOUT_MS) or answers anything else fails
 * safe: the step is refused with UNAVAILABLE and the failure logged with its name.
 */
@Injectable()
export class SignInPolicies {
  private readonly logger = new Logger('Extensions');
  private readonly policies: Registered[] = [];

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  add(name: string, policy: SignInPolicy): void {
    this.policies.push({ name, policy });
  }

  /** How many policies are registered (the engine asks none, and builds no context, when 0). */
  get size(): number {
    return this.policies.length;
  }

  /** What the policies decide together; throws the refusal of a `deny` or of a policy that failed. */
  async decide(context: SignInPolicyContext): Promise<'allow' | 'require_mfa'> {
    let outcome: 'allow' | 'require_mfa' = 'allow';
    for (const { name, policy } of this.policies) {
      const answer: unknown = await callExtensionHook(this.logger, name, policy, context, this.config.extensionHookTimeoutMs);
      const decision = (answer as { decision?: unknown } | null | undefined)?.decision;
      if (decision === 'allow') continue;
      if (decision === 'require_mfa') {
        outcome = 'require_mfa';
        continue;
      }
      if (decision === 'deny') {
        const message = (answer as { message?: unknown }).message;
        if (message !== undefined && typeof message !== 'string') throw extensionHookFailed(this.logger, name, 'a deny must give its message as a string');
        this.logger.log(`Sign-in policy "${name}" refused a sign-in of user ${context.user.id} (tenant ${context.tenantID})`);
        throw DomainError.permissionDenied(message?.trim() ? message.trim().slice(0, MESSAGE_MAX) : DEFAULT_MESSAGE, Reason.SIGN_IN_DENIED_BY_POLICY);
      }
      throw extensionHookFailed(this.logger, name, "a sign-in policy must answer { decision: 'allow' | 'deny' | 'require_mfa' }");
    }
    return outcome;
  }
}
