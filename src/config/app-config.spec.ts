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

  it('generates a development master key once and reuses it', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.masterKeySource).toBe('generated');
    expect(readFileSync(join(dir, 'master.key'), 'utf8').trim()).toBe(first.masterKey);
    expect(loadConfig({ DATA_DIR: dir }).masterKey).toBe(first.masterKey);
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
