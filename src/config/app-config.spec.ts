import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './app-config';

const dataDir = () => mkdtempSync(join(tmpdir(), 'iam-config-'));

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({ DATA_DIR: dataDir() });
    expect(c).toMatchObject({ port: 3000, tenancyMode: 'pooled', publicUrl: 'http://localhost:3000', mailFrom: 'no-reply@localhost', bcryptCost: 12 });
    expect(c.bootstrapAdminEmail).toBe('admin@localhost');
    expect(c.databaseUrl).toBeUndefined();
  });

  it('takes the authorization-cache heartbeat interval (5 s by default) and refuses one out of range', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).authCacheHeartbeatMs).toBe(5000);
    expect(loadConfig({ DATA_DIR: dataDir(), AUTH_CACHE_HEARTBEAT_MS: '200' }).authCacheHeartbeatMs).toBe(200);
    expect(() => loadConfig({ DATA_DIR: dataDir(), AUTH_CACHE_HEARTBEAT_MS: '10' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dataDir(), AUTH_CACHE_HEARTBEAT_MS: 'soon' })).toThrow('AUTH_CACHE_HEARTBEAT_MS');
  });

  it('takes the authorization-cache consistency (strict by default) and refuses another word', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).authCacheConsistency).toBe('strict');
    expect(loadConfig({ DATA_DIR: dataDir(), AUTH_CACHE_CONSISTENCY: 'bounded' }).authCacheConsistency).toBe('bounded');
    expect(() => loadConfig({ DATA_DIR: dataDir(), AUTH_CACHE_CONSISTENCY: 'eventual' })).toThrow('AUTH_CACHE_CONSISTENCY');
  });

  it('generates a development master key once and reuses it', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.masterKeySource).toBe('generated');
    expect(readFileSync(join(dir, 'master.key'), 'utf8').trim()).toBe(first.masterKey);
    expect(loadConfig({ DATA_DIR: dir }).masterKey).toBe(first.masterKey);
    expect(first.masterKeys).toEqual([first.masterKey]);
  });

  it('reads OAUTH_ENDPOINT_HOSTS as lowercase host names (none by default)', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).oauthEndpointHosts).toEqual([]);
    expect(loadConfig({ DATA_DIR: dataDir(), OAUTH_ENDPOINT_HOSTS: ' Login.Example.com, keys.example.com,,login.example.com ' }).oauthEndpointHosts).toEqual(['login.example.com', 'keys.example.com']);
  });

  it('reads TENANT_DATABASE_SERVERS as named PostgreSQL URLs (none by default) and never echoes a URL in its errors', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).tenantDatabaseServers).toEqual([]);
    expect(
      loadConfig({ DATA_DIR: dataDir(), TENANT_DATABASE_SERVERS: 'east=postgres://u:p@east:5432/postgres, west-2=postgresql://west/db\n' }).tenantDatabaseServers,
    ).toEqual([
      { name: 'east', url: 'postgres://u:p@east:5432/postgres' },
      { name: 'west-2', url: 'postgresql://west/db' },
    ]);
    const refused = (value: string) => {
      try {
        loadConfig({ DATA_DIR: dataDir(), TENANT_DATABASE_SERVERS: value });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error(`accepted ${value}`);
    };
    expect(refused('postgres://u:secret@east/postgres')).toMatch(/entry 1 must be name=postgres/);
    expect(refused('main=postgres://u:secret@east/postgres')).toMatch(/"main" is the main database's server/);
    expect(refused('a=postgres://u:secret@x/p,a=postgres://u:secret@y/p')).toMatch(/"a" is named twice/);
    expect(refused('a=http://u:secret@x/p')).toMatch(/the URL of "a" must be a postgres:\/\/ URL/);
    expect(refused('Big=postgres://u:secret@x/p')).toMatch(/lowercase/);
    for (const value of ['postgres://u:secret@east/postgres', 'a=http://u:secret@x/p']) expect(refused(value)).not.toContain('secret');
  });

  it('reads TENANT_DATABASE_SERVERS_DIRECT as the servers behind a pooler, for sessions', () => {
    const c = loadConfig({ DATA_DIR: dataDir(), TENANT_DATABASE_SERVERS: 'east=postgres://u@pooler:6432/postgres', TENANT_DATABASE_SERVERS_DIRECT: 'east=postgres://u@east:5432/postgres' });
    expect(c.tenantDatabaseServers).toEqual([{ name: 'east', url: 'postgres://u@pooler:6432/postgres', directUrl: 'postgres://u@east:5432/postgres' }]);
    expect(() => loadConfig({ DATA_DIR: dataDir(), TENANT_DATABASE_SERVERS_DIRECT: 'west=postgres://u@west/postgres' })).toThrow('"west" is not one of TENANT_DATABASE_SERVERS');
  });

  describe('master keys', () => {
    const NEW = 'new-master-key-0123456789abcdef0123456789';
    const OLD = 'old-master-key-0123456789abcdef0123456789';
    const OLDER = 'older-master-key-0123456789abcdef012345678';

    it('takes MASTER_KEY alone as the only key', () => {
      const c = loadConfig({ DATA_DIR: dataDir(), MASTER_KEY: NEW });
      expect(c).toMatchObject({ masterKey: NEW, masterKeys: [NEW], masterKeySource: 'env' });
    });

    it('takes MASTER_KEY plus MASTER_KEY_PREVIOUS (comma-separated), newest first', () => {
      const c = loadConfig({ DATA_DIR: dataDir(), MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: ` ${OLD} , ${OLDER}` });
      expect(c.masterKeys).toEqual([NEW, OLD, OLDER]);
      expect(c.masterKey).toBe(NEW);
    });

    it('takes MASTER_KEYS (comma-separated, newest first)', () => {
      const c = loadConfig({ DATA_DIR: dataDir(), MASTER_KEYS: `${NEW},${OLD}` });
      expect(c).toMatchObject({ masterKey: NEW, masterKeys: [NEW, OLD], masterKeySource: 'env' });
    });

    it('keeps a comma inside MASTER_KEY as part of the one key', () => {
      const key = 'a,key-with-a-comma-0123456789abcdef0123';
      expect(loadConfig({ DATA_DIR: dataDir(), MASTER_KEY: key }).masterKeys).toEqual([key]);
    });

    it('does not generate a development key when keys are configured', () => {
      const dir = dataDir();
      loadConfig({ DATA_DIR: dir, MASTER_KEYS: NEW });
      expect(() => readFileSync(join(dir, 'master.key'))).toThrow();
    });

    it.each([
      [{ MASTER_KEYS: `${NEW},${OLD}`, MASTER_KEY: NEW }, 'MASTER_KEYS', /MASTER_KEYS and MASTER_KEY cannot both be set/],
      [{ MASTER_KEYS: NEW, MASTER_KEY_PREVIOUS: OLD }, 'MASTER_KEYS', /MASTER_KEY_PREVIOUS/],
      [{ MASTER_KEY_PREVIOUS: OLD }, 'MASTER_KEY_PREVIOUS', /needs MASTER_KEY/],
      [{ MASTER_KEYS: `${NEW},short` }, 'MASTER_KEYS', /key 2 must be at least 32 characters/],
      [{ MASTER_KEYS: `${NEW},,${OLD}` }, 'MASTER_KEYS', /empty entry/],
      [{ MASTER_KEYS: `${NEW},${NEW}` }, 'MASTER_KEYS', /repeats a key/],
      [{ MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: `${OLD},short` }, 'MASTER_KEY_PREVIOUS', /key 2 must be at least 32 characters/],
      [{ MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: NEW }, 'MASTER_KEY_PREVIOUS', /repeats a key/],
      [{ MASTER_KEY: 'short', MASTER_KEY_PREVIOUS: OLD }, 'MASTER_KEY', /at least 32 characters/],
    ])('refuses %j naming %s, without showing a key', (env, variable, message) => {
      let error: unknown;
      try {
        loadConfig({ DATA_DIR: dataDir(), ...env });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(variable);
      expect((error as Error).message).toMatch(message);
      for (const key of [NEW, OLD]) expect((error as Error).message).not.toContain(key);
    });

    it('in production accepts MASTER_KEYS in place of MASTER_KEY', () => {
      expect(loadConfig({ DATA_DIR: dataDir(), NODE_ENV: 'production', MASTER_KEYS: `${NEW},${OLD}` }).masterKeys).toEqual([NEW, OLD]);
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ TENANCY_MODE: 'bogus' }, 'TENANCY_MODE'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ PUBLIC_URL: 'not a url' }, 'PUBLIC_URL'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ MASTER_KEY: 'short' }, 'MASTER_KEY'],
    [{ NODE_ENV: 'production' }, 'MASTER_KEY'],
    [{ BOOTSTRAP_ADMIN_EMAIL: 'nobody' }, 'BOOTSTRAP_ADMIN_EMAIL'],
    [{ BOOTSTRAP_ADMIN_PASSWORD: 'short' }, 'BOOTSTRAP_ADMIN_PASSWORD'],
    [{ BCRYPT_COST: '3' }, 'BCRYPT_COST'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY'],
    [{ OAUTH_ENDPOINT_HOSTS: 'https://idp.example.com' }, 'OAUTH_ENDPOINT_HOSTS'],
    [{ OAUTH_ENDPOINT_HOSTS: 'idp.example.com:443' }, 'OAUTH_ENDPOINT_HOSTS'],
    [{ OAUTH_ENDPOINT_HOSTS: 'idp.example.com/path' }, 'OAUTH_ENDPOINT_HOSTS'],
    [{ OAUTH_ENDPOINT_HOSTS: '10.0.0.1' }, 'OAUTH_ENDPOINT_HOSTS'],
  ])('refuses %j naming %s', (env, variable) => {
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: dataDir(), ...env });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as Error).message).toContain(variable);
  });
});
