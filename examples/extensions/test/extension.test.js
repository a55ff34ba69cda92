'use strict';
// The example's own tests: `npm test` here, or from the service's checkout (its `npm test` runs them too).
const assert = require('node:assert/strict');
const { mkdtempSync, readFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { describe, it } = require('node:test');
const { allowList, eventWriter, exampleClaims, exampleModule, extension, optionsFromEnv } = require('..');

const user = { id: 'u1', username: 'ann', email: 'Ann@Example.COM', isAdmin: false, roles: [], permissions: [] };
const signIn = (clientIp) => ({ tenantID: 't', sectorID: 's', user, factors: ['PASSWORD'], amr: ['pwd'], clientIp, userAgent: '' });

describe('the example extension', () => {
  it('is written for version 1 of the extension API', () => {
    assert.equal(extension.apiVersion, 1);
    assert.equal(typeof extension.module, 'function');
  });

  it('adds ext_example and the email domain to tokens', () => {
    assert.deepEqual(exampleClaims({ tenantID: 't', sectorID: 's', user }), { ext_example: true, email_domain: 'example.com' });
    assert.deepEqual(exampleClaims({ tenantID: 't', sectorID: 's', user: { ...user, email: '' } }), { ext_example: true, email_domain: '' });
  });

  it('lets listed addresses and ranges sign in and refuses the others', () => {
    const policy = allowList(['198.51.100.7', '203.0.113.0/24', '2001:db8::/32']);
    for (const ip of ['198.51.100.7', '203.0.113.200', '::ffff:203.0.113.5', '2001:db8::1']) assert.deepEqual(policy(signIn(ip)), { decision: 'allow' }, ip);
    for (const ip of ['198.51.100.8', '192.0.2.1', '2001:db9::1', '']) {
      assert.deepEqual(policy(signIn(ip)), { decision: 'deny', message: 'Signing in is not allowed from this network.' }, ip);
    }
    assert.throws(() => allowList(['not-an-address']), /not an address or CIDR range/);
    assert.throws(() => allowList(['10.0.0.0/x']), /not an address or CIDR range/);
  });

  it('appends events as JSON lines, in order', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'iam-example-')), 'events.jsonl');
    const write = eventWriter(file);
    const events = [1, 2, 3].map((n) => ({ id: `msg_${n}`, type: 'user.created', timestamp: new Date(0).toISOString(), data: { tenantID: 't', sectorID: 's', userID: `u${n}` } }));
    await Promise.all(events.map(write));
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(lines, events);
  });

  it('reads its options from the environment', () => {
    assert.deepEqual(optionsFromEnv({}), { allowedAddresses: [], eventsFile: undefined });
    assert.deepEqual(optionsFromEnv({ IAM_EXAMPLE_ALLOWED_ADDRESSES: ' 10.0.0.1, 10.1.0.0/16 ,', IAM_EXAMPLE_EVENTS_FILE: '/tmp/e.jsonl' }), {
      allowedAddresses: ['10.0.0.1', '10.1.0.0/16'],
      eventsFile: '/tmp/e.jsonl',
    });
  });

  it("builds a Nest module that imports the service's ExtensionsModule and registers only what is configured", () => {
    class ExtensionsModule {}
    class ExtensionHost {}
    const api = { version: 1, name: 'example', ExtensionsModule, ExtensionHost };
    const calls = [];
    const host = {
      addClaims: (name) => calls.push(['claims', name]),
      addSignInPolicy: (name) => calls.push(['policy', name]),
      subscribe: (name, types) => calls.push(['events', name, types]),
    };
    const build = (options) => {
      const mod = exampleModule(/** @type {any} */ (api), options);
      assert.deepEqual(mod.imports, [ExtensionsModule]);
      assert.deepEqual(mod.providers[0].inject, [ExtensionHost]);
      calls.length = 0;
      mod.providers[0].useFactory(host);
      return [...calls];
    };
    assert.deepEqual(build({ allowedAddresses: [], eventsFile: undefined }), [['claims', 'example']]);
    assert.deepEqual(build({ allowedAddresses: ['10.0.0.1'], eventsFile: '/tmp/x' }), [['claims', 'example'], ['policy', 'example'], ['events', 'example', ['*']]]);
    assert.throws(() => exampleModule(/** @type {any} */ (api), { allowedAddresses: ['nope'], eventsFile: undefined }), /not an address/);
  });
});
