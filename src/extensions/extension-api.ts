import type { DynamicModule, Type } from '@nestjs/common';
import type { PendingSlot } from '../auth/engine/factor-strategy';
import type { DomainError } from '../common/errors/domain-error';
import type { ExtensionHost } from './extension-host';

/**
 * The version of the extension API: the seams and their shapes (docs/extending.md).
 * A change that breaks an extension written against it raises it; the service
 * refuses to load a module written for another.
 */
export const EXTENSION_API_VERSION = 1;

/** An extension's Nest module: a module class, or a dynamic module (which may have its own providers and controllers). */
export type ExtensionModule = DynamicModule | Type<unknown>;

/**
 * What the service hands an extension when it loads it: the classes it needs at
 * run time, from the running service itself. An extension package imports the
 * service's types only (`import type`), never its code, so that it works with the
 * instance that loads it whatever copy of the service's files it could reach.
 */
export interface ExtensionApi {
  readonly version: typeof EXTENSION_API_VERSION;
  /** The EXTENSION_MODULES entry the extension was loaded by: name its hooks and subscriptions with it, so logs name the module. */
  readonly name: string;
  /** The module that provides `ExtensionHost`: import it into the extension's module. */
  readonly ExtensionsModule: Type<unknown>;
  /** The class of the registration service, the token to inject it by (`inject: [api.ExtensionHost]`). */
  readonly ExtensionHost: Type<ExtensionHost>;
  /** The error a factor strategy answers a refusal with (`wrongProof`), as the service's own strategies do. */
  readonly DomainError: typeof DomainError;
  /** The slot a factor strategy keeps its pending state in between its begin and its proof. */
  readonly PendingSlot: typeof PendingSlot;
}

/**
 * What an extension package exports, as `extension` (or as its default export).
 * `module(api)` runs once, at start, before the application is built.
 */
export interface ExtensionDefinition {
  /** The EXTENSION_API_VERSION the extension was written for. */
  readonly apiVersion: number;
  module(api: ExtensionApi): ExtensionModule | Promise<ExtensionModule>;
}
