import { calledUrlProblem } from './called-urls';

describe('calledUrlProblem', () => {
  it('takes https URLs on public hosts, and metadata without called URLs', () => {
    expect(calledUrlProblem({ backchannel_logout_uri: 'https://app.example.com/logout', jwks_uri: 'https://app.example.com/jwks' }, false)).toBeUndefined();
    expect(calledUrlProblem({ redirect_uris: ['http://127.0.0.1/cb'] }, false)).toBeUndefined();
  });

  it.each([
    ['http://app.example.com/logout', 'backchannel_logout_uri must use https'],
    ['https://10.1.2.3/logout', 'backchannel_logout_uri must not be a private address'],
    ['https://169.254.169.254/logout', 'backchannel_logout_uri must not be a link-local address'],
    ['https://localhost/logout', 'backchannel_logout_uri must not be a loopback host'],
    ['not a url', 'backchannel_logout_uri must be a URL'],
  ])('refuses %s for back-channel logout: %s', (uri, description) => {
    expect(calledUrlProblem({ backchannel_logout_uri: uri }, false)).toEqual({ metadata: 'backchannel_logout_uri', field: 'backchannelLogoutURI', description });
  });

  it('names the key set URL in the admin API’s words', () => {
    expect(calledUrlProblem({ jwks_uri: 'http://keys.example.com/' }, false)).toEqual({ metadata: 'jwks_uri', field: 'jwksURI', description: 'jwks_uri must use https' });
  });

  it('allows http and private addresses with OUTBOUND_ALLOW_PRIVATE_NETWORKS, never other schemes', () => {
    expect(calledUrlProblem({ backchannel_logout_uri: 'http://10.1.2.3:8080/logout' }, true)).toBeUndefined();
    expect(calledUrlProblem({ backchannel_logout_uri: 'http://127.0.0.1:8080/logout' }, true)).toBeUndefined();
    expect(calledUrlProblem({ backchannel_logout_uri: 'ftp://10.1.2.3/' }, true)?.description).toBe('backchannel_logout_uri must use https');
  });
});
