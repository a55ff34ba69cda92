import { Injectable } from '@nestjs/common';
import { FactorRegistry } from '../auth/engine/factor-registry';
import { SignInEngine } from '../auth/engine/sign-in-engine';
import { SignInPolicies, SignInPolicy } from '../auth/engine/sign-in-policies';
import { EventBus, EventHandler } from '../events/event-bus';
import { ALL_EVENTS, ServiceEventType } from '../events/service-event';
import { ClaimsContributor, TokenClaims } from '../keys/token-claims';

/**
 * What an extension module registers its hooks with (docs/extending.md): inject
 * it by `api.ExtensionHost` and register from a provider's factory or its
 * `onModuleInit`. Every hook is named: the name appears in the logs of its
 * failures (use `api.name`, the module's EXTENSION_MODULES entry).
 */
@Injectable()
export class ExtensionHost {
  constructor(
    private readonly claims: TokenClaims,
    private readonly policies: SignInPolicies,
    private readonly bus: EventBus,
    /** The sign-in factors the engine knows: `register` a FactorStrategy (in `onModuleInit`). */
    readonly factors: FactorRegistry,
    /** The sign-in engine, for the endpoints of a factor the extension adds: `load` a step, `begin` the factor, `verify` its proof. */
    readonly signIn: SignInEngine,
  ) {}

  /** Adds claims to every access token issued to a user (sign-in, refresh, re-authentication); reserved claims are ignored. */
  addClaims(name: string, contributor: ClaimsContributor): void {
    this.claims.add(checkedName(name), checkedFunction(contributor, 'claims contributor'));
  }

  /** Asks `policy` before every sign-in transaction succeeds: allow, deny, or require a second factor. */
  addSignInPolicy(name: string, policy: SignInPolicy): void {
    this.policies.add(checkedName(name), checkedFunction(policy, 'sign-in policy'));
  }

  /**
   * Calls `handler` with the events of `types` (`['*']`: all) after the change
   * that caused each committed, on the instance that committed it (at most once:
   * webhooks are the reliable channel). Answers a function that unsubscribes.
   */
  subscribe(name: string, types: readonly (ServiceEventType | typeof ALL_EVENTS)[], handler: EventHandler): () => void {
    return this.bus.subscribe(checkedName(name), types, checkedFunction(handler, 'event handler'));
  }
}

function checkedName(name: string): string {
  if (typeof name !== 'string' || name.trim() === '') throw new Error('An extension hook needs a name (the module name, api.name).');
  return name;
}

function checkedFunction<F>(fn: F, what: string): F {
  if (typeof fn !== 'function') throw new Error(`An extension's ${what} must be a function.`);
  return fn;
}
