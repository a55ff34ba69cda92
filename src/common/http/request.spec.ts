import { redactUrl } from './request';

describe('redactUrl', () => {
  it('keeps paths and harmless paging parameters, hides every other query value', () => {
    expect(redactUrl('/api/v1/users/abc')).toBe('/api/v1/users/abc');
    expect(redactUrl('/api/v1/users/abc?transactionID=secret-proof')).toBe('/api/v1/users/abc?transactionID=***');
    expect(redactUrl('/api/v1/sectors/s/users?searchTerm=alice&page=2&pageSize=50&filterEmail=a%40b.c')).toBe(
      '/api/v1/sectors/s/users?searchTerm=***&page=2&pageSize=50&filterEmail=***',
    );
    expect(redactUrl('/invite?token=abc&flag')).toBe('/invite?token=***&flag');
    expect(redactUrl('/x?%E0%A4%A=1')).toBe('/x?%E0%A4%A=***');
  });
});
