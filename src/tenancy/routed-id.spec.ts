import { newRoutedId, tenantOfRoutedId } from './routed-id';

describe('routed ids', () => {
  const tenant = '3f2c9a44-5b1e-4c8d-9e7f-0a1b2c3d4e5f';

  it('carry their tenant and 256 random bits', () => {
    const a = newRoutedId(tenant);
    const b = newRoutedId(tenant);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(tenantOfRoutedId(a)).toBe(tenant);
  });

  it('refuse anything else', () => {
    expect(tenantOfRoutedId('short')).toBeUndefined();
    expect(tenantOfRoutedId('x'.repeat(63) + '!')).toBeUndefined();
  });
});
