import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { installLeanAsyncResourceBind } from './async-resource-bind';

describe('installLeanAsyncResourceBind', () => {
  beforeAll(() => installLeanAsyncResourceBind());

  it('binds without the deprecated asyncResource property', () => {
    const bound = AsyncResource.bind(() => 1);
    expect(Object.prototype.hasOwnProperty.call(bound, 'asyncResource')).toBe(false);
    expect(bound()).toBe(1);
  });

  it('runs the function in the async context it was bound in, with its this, arguments and length', () => {
    const als = new AsyncLocalStorage<string>();
    const fn = function (this: unknown, a: number, b: number) {
      return `${als.getStore()}:${(this as { tag?: string } | undefined)?.tag}:${a + b}`;
    };
    const bound = als.run('bound-here', () => AsyncResource.bind(fn));
    expect(bound.length).toBe(2);
    expect(als.run('called-here', () => bound.call({ tag: 'this' }, 1, 2))).toBe('bound-here:this:3');
    // Node's typings omit bind's second argument (thisArg), which Node documents and implements.
    const bindWithThis = AsyncResource.prototype.bind as unknown as (this: AsyncResource, f: typeof fn, thisArg: object) => (a: number, b: number) => string;
    const withThis = als.run('bound-here', () => bindWithThis.call(new AsyncResource('test'), fn, { tag: 'fixed' }));
    expect(withThis(2, 3)).toBe('bound-here:fixed:5');
  });

  it('refuses what is not a function, like Node does', () => {
    // By name: in a test run the bind in place may come from another spec's module realm (its own TypeError).
    let error: Error | undefined;
    try {
      new AsyncResource('test').bind(42 as unknown as () => void);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.name).toBe('TypeError');
    expect(error?.message).toMatch(/"fn" argument must be of type function/);
  });
});
