import { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
// eslint-disable-next-line no-restricted-imports -- patched framework internals, kept until a public API meets the speed budget (docs/adr/0032-framework-path-per-request.md)
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import { AsyncLocalStorage } from 'node:async_hooks';
import { isObservable, lastValueFrom, map, Observable } from 'rxjs';
import { installPromiseInterceptors, PromiseInterceptor } from './promise-interceptors';

class Tagging implements PromiseInterceptor {
  constructor(private readonly tag: string) {}
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((v) => `${this.tag}(${String(v)})`));
  }
  async aroundPromise(context: ExecutionContext, handle: () => Promise<unknown>): Promise<unknown> {
    try {
      return `${this.tag}(${String(await handle())})`;
    } catch (err) {
      throw new Error(`${this.tag}:${(err as Error).message}:${context.getType()}`);
    }
  }
}

class RxOnly implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((v) => `rx(${String(v)})`));
  }
}

/** What the router does with intercept's answer: await it, then unwrap an observable. */
async function routerResult(answer: Promise<unknown>): Promise<unknown> {
  const result = await answer;
  return isObservable(result) ? lastValueFrom(result) : result;
}

describe('installPromiseInterceptors', () => {
  beforeAll(() => installPromiseInterceptors());
  const consumer = new InterceptorsConsumer();
  const controller = { constructor: class Controller {} };
  const callback = () => undefined;

  it('runs promise interceptors in order around the handler, as a plain promise', async () => {
    const answer = consumer.intercept([new Tagging('a'), new Tagging('b')], [{}, {}], controller, callback, () => Promise.resolve('h'), 'http');
    expect(isObservable(await answer)).toBe(false);
    await expect(routerResult(answer)).resolves.toBe('a(b(h))');
  });

  it('lets each interceptor map an error, the innermost first', async () => {
    const answer = consumer.intercept([new Tagging('a'), new Tagging('b')], [{}, {}], controller, callback, () => Promise.reject(new Error('boom')), 'http');
    await expect(routerResult(answer)).rejects.toThrow('a:b:boom:http:http');
  });

  it('keeps the async context of the request for the handler', async () => {
    const als = new AsyncLocalStorage<string>();
    const answer = als.run('request-1', () =>
      consumer.intercept([new Tagging('a')], [{}, {}], controller, callback, () => Promise.resolve(als.getStore()), 'http'),
    );
    await expect(routerResult(answer)).resolves.toBe('a(request-1)');
  });

  it("leaves any other list, and any other context, to NestJS's own consumer", async () => {
    const mixed = consumer.intercept([new Tagging('a'), new RxOnly()], [{}, {}], controller, callback, () => Promise.resolve('h'), 'http');
    expect(isObservable(await mixed)).toBe(true);
    await expect(routerResult(mixed)).resolves.toBe('a(rx(h))');
    const rpc = consumer.intercept([new Tagging('a')], [{}, {}], controller, callback, () => Promise.resolve('h'), 'rpc');
    expect(isObservable(await rpc)).toBe(true);
    await expect(routerResult(rpc)).resolves.toBe('a(h)');
    await expect(routerResult(consumer.intercept([], [{}, {}], controller, callback, () => Promise.resolve('h'), 'http'))).resolves.toBe('h');
  });
});
