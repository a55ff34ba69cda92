import { linkBase, magicLinkUrlProblem } from './magic-link-url';

const PUBLIC = 'https://iam.example.com';
const ORIGINS = ['https://app.example.com/', 'http://localhost:8080'];

describe('magicLinkUrlProblem', () => {
  it.each([
    ['', false],
    ['https://app.example.com/link?x=1', false],
    ['HTTPS://APP.EXAMPLE.COM/link', false],
    ['https://iam.example.com/invite', false],
    ['http://localhost:8080/link', false],
  ])('accepts %s outside production', (value) => {
    expect(magicLinkUrlProblem(value, PUBLIC, ORIGINS, false)).toBeUndefined();
  });

  it.each([
    ['http://app.example.com/link', /https/],
    ['https://evil.example.com/link', /allowedOrigins/],
    ['https://app.example.com:8443/link', /allowedOrigins/],
    ['http://localhost:9999/link', /allowedOrigins/],
    ['https://user:pw@app.example.com/link', /credentials/],
    ['javascript:alert(1)', /https/],
    ['not a url', /absolute/],
  ])('refuses %s', (value, problem) => {
    expect(magicLinkUrlProblem(value, PUBLIC, ORIGINS, false)).toMatch(problem);
  });

  it('refuses http for localhost in production', () => {
    expect(magicLinkUrlProblem('http://localhost:8080/link', PUBLIC, ORIGINS, true)).toBe('must use https');
  });
});

describe('linkBase', () => {
  it('uses a MagicLinkURL that passes the rules today', () => {
    expect(linkBase({ magicLinkUrl: 'https://app.example.com/welcome' }, PUBLIC, '/invite', ORIGINS, false)).toBe('https://app.example.com/welcome');
  });

  it('falls back to PUBLIC_URL + the default path when none is set or the stored one no longer passes', () => {
    expect(linkBase({ magicLinkUrl: '' }, PUBLIC, '/invite', ORIGINS, false)).toBe('https://iam.example.com/invite');
    expect(linkBase({ magicLinkUrl: 'https://old.example.com/welcome' }, PUBLIC, '/invite', ORIGINS, false)).toBe('https://iam.example.com/invite');
    expect(linkBase({ magicLinkUrl: 'http://localhost:8080/link' }, PUBLIC, '/magic-link', ORIGINS, true)).toBe('https://iam.example.com/magic-link');
  });
});
