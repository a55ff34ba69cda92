/**
 * The extension API, version EXTENSION_API_VERSION: everything an extension module
 * may rely on, and nothing else (docs/extending.md, docs/adr/0047-extension-modules.md).
 *
 * An extension package imports from here with `import type` only. It gets the
 * classes it needs at run time from the service that loads it, through the
 * ExtensionApi handed to its `module(api)`: so it never holds a second copy of
 * the service's classes, whatever it resolves this file to.
 */

// Loading: what a package exports, and what it is given.
export { EXTENSION_API_VERSION } from './extension-api';
export type { ExtensionApi, ExtensionDefinition, ExtensionModule } from './extension-api';
export type { ExtensionHost } from './extension-host';
export type { ExtensionsModule } from './extensions.module';

// Token claims.
export type { ClaimsContributor, TokenClaimsContext } from '../keys/token-claims';
export type { HookUser } from '../common/extensions/extension-hook';

// Sign-in policy.
export type { SignInDecision, SignInPolicy, SignInPolicyContext } from '../auth/engine/sign-in-policies';

// Events in process (the same events as webhooks).
export { ALL_EVENTS, SERVICE_EVENT_TYPES } from '../events/service-event';
export type { ServiceEvent, ServiceEventData, ServiceEventType } from '../events/service-event';
export type { EventBus, EventHandler } from '../events/event-bus';

// Factors: the sign-in engine's own strategy interface.
export type { Assurance, Factor } from '../auth/engine/auth-policy';
export type { FactorRegistry } from '../auth/engine/factor-registry';
export type { AnyFactorStrategy, BeginOutcome, ConsumePending, FactorStrategy, PendingSlot, Refusal, StepState, Verdict } from '../auth/engine/factor-strategy';
export type { SignInEngine, StepRequest } from '../auth/engine/sign-in-engine';
export type { AuthResultResponse } from '../auth/engine/auth.dto';
export type { DomainError } from '../common/errors/domain-error';
