import type { ExecutionContext, NestInterceptor } from '@nestjs/common';
// eslint-disable-next-line no-restricted-imports -- patched framework internals, kept until a public API meets the speed budget (docs/adr/0032-framework-path-per-request.md)
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
// eslint-disable-next-line no-restricted-imports -- patched framework internals, kept until a public API meets the speed budget (docs/adr/0032-framework-path-per-request.md)
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';

/**
 * An interceptor that can also run around a handler as a promise. NestJS runs
 * interceptors through rxjs: for each request it builds `defer`/`mergeAll`
 * observables around the handler, binds two functions to the async context, and
 * turns the result back into a promise (`lastValueFrom`). With the service's one
 * global interceptor that machinery measured about 60 µs per request on this
 * machine, a sixth of an authenticated read, for an interceptor that only has
 * work to do when the handler throws.
 */
export interface PromiseInterceptor extends NestInterceptor {
  /** What `intercept` does, around `handle` (the next interceptor or the handler) as a promise. */
  aroundPromise(context: ExecutionContext, handle: () => Promise<unknown>): Promise<unknown>;
}

function isPromiseInterceptor(interceptor: NestInterceptor): interceptor is PromiseInterceptor {
  return typeof (interceptor as Partial<PromiseInterceptor>).aroundPromise === 'function';
}

const installed = Symbol.for('iam.promiseInterceptors');
type Intercept = InterceptorsConsumer['intercept'];

/**
 * Lets NestJS run HTTP handlers whose interceptors are all `PromiseInterceptor`s
 * through their promise form; any other interceptor list, and any other context
 * (RPC, websockets), goes through NestJS's own consumer unchanged. The result is
 * the same for the router either way: it awaits what `intercept` answers and
 * unwraps an observable (a handler's own) with `lastValueFrom`, as it does for
 * the observable NestJS's consumer answers; an error rejects the same promise and
 * reaches the exception filter the same way; and the handler runs in the
 * request's async context, which a promise chain keeps without binding.
 */
export function installPromiseInterceptors(): void {
  // eslint-disable-next-line no-restricted-syntax -- patched framework internals, kept until a public API meets the speed budget (docs/adr/0032-framework-path-per-request.md)
  const proto = InterceptorsConsumer.prototype as InterceptorsConsumer & { [installed]?: true };
  if (proto[installed]) return;
  const original: Intercept = proto.intercept;
  proto.intercept = function intercept(this: InterceptorsConsumer, interceptors, args, instance, callback, next, type) {
    if (type !== 'http' || interceptors.length === 0 || !interceptors.every(isPromiseInterceptor)) {
      return original.call(this, interceptors, args, instance, callback, next, type);
    }
    const context = new ExecutionContextHost(args, instance.constructor as never, callback);
    context.setType(type);
    const around = interceptors as PromiseInterceptor[];
    const run = (i: number): Promise<unknown> => (i < around.length ? around[i].aroundPromise(context, () => run(i + 1)) : next());
    return run(0);
  } as Intercept;
  proto[installed] = true;
}
