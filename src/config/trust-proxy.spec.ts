import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './app-config';

const trustProxy = (value: string | undefined) => loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'iam-config-')), TRUST_PROXY: value }).trustProxy;

describe('TRUST_PROXY', () => {
  it('is off by default', () => {
    expect(trustProxy(undefined)).toBe(false);
    expect(trustProxy('false')).toBe(false);
  });

  it('takes a hop count, proxy addresses and CIDRs, or the names Express knows', () => {
    expect(trustProxy('1')).toBe(1);
    expect(trustProxy('2')).toBe(2);
    expect(trustProxy('10.0.0.0/8, 192.168.1.7,fd00::/8')).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);
    expect(trustProxy('loopback,uniquelocal')).toEqual(['loopback', 'uniquelocal']);
    expect(trustProxy('true')).toBe(true);
  });

  it.each(['maybe', '10.0.0.0/33', '300.1.1.1', '10.0.0.0/8/1', 'fd00::/129'])('refuses %s naming the variable', (value) => {
    expect(() => trustProxy(value)).toThrow(ConfigError);
    expect(() => trustProxy(value)).toThrow(/TRUST_PROXY/);
  });
});
