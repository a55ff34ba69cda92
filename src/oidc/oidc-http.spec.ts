import { withSessionIdClaim } from './oidc-http';

describe('withSessionIdClaim (sid in every ID token)', () => {
  const claimsOf = (url: string) => JSON.parse(new URL(url, 'http://x').searchParams.get('claims') ?? 'null');

  it('asks for sid on an authorization request, keeping what the app asked', () => {
    expect(claimsOf(withSessionIdClaim('/auth?client_id=c&scope=openid'))).toEqual({ id_token: { sid: null } });
    const asked = encodeURIComponent(JSON.stringify({ userinfo: { email: null }, id_token: { acr: { essential: true } } }));
    expect(claimsOf(withSessionIdClaim(`/auth?client_id=c&claims=${asked}`))).toEqual({ userinfo: { email: null }, id_token: { sid: null, acr: { essential: true } } });
    expect(new URL(withSessionIdClaim('/auth?client_id=c&state=a%20b'), 'http://x').searchParams.get('state')).toBe('a b');
  });

  it('leaves every other request alone', () => {
    for (const url of ['/token', '/auth', '/auth/abc?x=1', '/device?user_code=X', '/auth?request=eyJ', '/auth?request_uri=urn:x', '/auth?claims=not-json', '/auth?claims=%5B%5D', '/auth?claims=%7B%22id_token%22%3A1%7D']) {
      expect(withSessionIdClaim(url)).toBe(url);
    }
  });
});
