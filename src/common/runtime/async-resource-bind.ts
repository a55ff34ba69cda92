import { AsyncResource } from 'node:async_hooks';

/**
 * Node 20 to 24 give every function bound with `AsyncResource.prototype.bind` a
 * deprecated `asyncResource` property (DEP0172), built from two fresh
 * `deprecate()` wrappers on each call. That costs about 7 µs per bind here, and
 * NestJS binds two functions per request for each interceptor. That is a fifth of
 * a cheap authenticated read. Node 25 removed the property (End-of-Life). This
 * gives older versions the same `bind` without the property: the function runs
 * in the resource's async scope with the same `this` and arguments, and keeps its
 * `length`. On a Node that no longer adds the property, nothing changes.
 */
export function installLeanAsyncResourceBind(): void {
  const probe = new AsyncResource('iam-probe').bind(() => undefined);
  if (!Object.prototype.hasOwnProperty.call(probe, 'asyncResource')) return;
  // eslint-disable-next-line no-restricted-syntax -- patched framework internals, kept until a public API meets the speed budget (docs/adr/0032-framework-path-per-request.md)
  AsyncResource.prototype.bind = function bind<F extends (...args: never[]) => unknown>(this: AsyncResource, fn: F, thisArg?: ThisParameterType<F>): F {
    if (typeof fn !== 'function') throw new TypeError('The "fn" argument must be of type function');
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- patched framework internals, kept until a public API meets the speed budget (docs/adr/0032-framework-path-per-request.md)
    const resource = this;
    const target = fn as unknown as (...a: unknown[]) => unknown;
    const bound =
      thisArg === undefined
        ? function (this: unknown, ...args: unknown[]) {
            return resource.runInAsyncScope(target, this, ...args);
          }
        : resource.runInAsyncScope.bind(resource, target, thisArg);
    Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, writable: false, value: fn.length });
    return bound as unknown as F;
  };
}
