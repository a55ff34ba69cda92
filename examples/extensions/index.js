// @ts-check
'use strict';
/**
 * An example extension module of the identity service (docs/extending.md). Load it
 * with EXTENSION_MODULES=./examples/extensions (or its package name once installed).
 *
 * - A claim: every access token says `ext_example: true` and the domain of the
 *   user's email (`email_domain`, '' when none).
 * - A sign-in policy: only client addresses of IAM_EXAMPLE_ALLOWED_ADDRESSES
 *   (comma-separated addresses and CIDR ranges) may sign in; others are refused
 *   (PERMISSION_DENIED / SIGN_IN_DENIED_BY_POLICY). Unset: no policy.
 * - An event subscriber: every event, as one JSON line appended to the file
 *   IAM_EXAMPLE_EVENTS_FILE. Unset: no subscriber.
 *
 * Plain CommonJS with JSDoc types, so it needs no build. It imports nothing of the
 * service at run time: the service hands it what it needs (`api`), and the types
 * come from the service's entry point `src/extensions/index.ts`.
 */
const { appendFile } = require('node:fs/promises');
const { BlockList, isIP } = require('node:net');

/** @typedef {import('../../src/extensions').ExtensionApi} ExtensionApi */
/** @typedef {import('../../src/extensions').ExtensionDefinition} ExtensionDefinition */
/** @typedef {import('../../src/extensions').ExtensionHost} ExtensionHost */
/** @typedef {import('../../src/extensions').TokenClaimsContext} TokenClaimsContext */
/** @typedef {import('../../src/extensions').SignInPolicy} SignInPolicy */
/** @typedef {import('../../src/extensions').ServiceEvent} ServiceEvent */
/** @typedef {import('@nestjs/common').DynamicModule} DynamicModule */

/**
 * @typedef {object} ExampleOptions
 * @property {string[]} allowedAddresses addresses and CIDR ranges allowed to sign in; empty: no policy
 * @property {string | undefined} eventsFile where events are appended as JSON lines; undefined: no subscriber
 */

/**
 * The options from the environment, read when the service loads the module.
 * @param {Record<string, string | undefined>} env
 * @returns {ExampleOptions}
 */
function optionsFromEnv(env) {
  const list = (env.IAM_EXAMPLE_ALLOWED_ADDRESSES ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const file = (env.IAM_EXAMPLE_EVENTS_FILE ?? '').trim();
  return { allowedAddresses: list, eventsFile: file === '' ? undefined : file };
}

/**
 * The claims added to every access token.
 * @param {TokenClaimsContext} context
 * @returns {Record<string, unknown>}
 */
function exampleClaims(context) {
  const at = context.user.email.lastIndexOf('@');
  return { ext_example: true, email_domain: at >= 0 ? context.user.email.slice(at + 1).toLowerCase() : '' };
}

/**
 * A sign-in policy that lets only the listed addresses and ranges sign in.
 * @param {readonly string[]} entries addresses (`198.51.100.7`, `2001:db8::1`) and CIDR ranges (`203.0.113.0/24`)
 * @returns {SignInPolicy}
 */
function allowList(entries) {
  const allowed = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits))) throw new Error(`not an address or CIDR range: "${entry}"`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) allowed.addAddress(address, type);
    else allowed.addSubnet(address, Number(bits), type);
  }
  return (context) => {
    const address = unmapped(context.clientIp);
    const family = isIP(address);
    if (family !== 0 && allowed.check(address, family === 6 ? 'ipv6' : 'ipv4')) return { decision: 'allow' };
    return { decision: 'deny', message: 'Signing in is not allowed from this network.' };
  };
}

/**
 * An IPv4 address written as IPv6 (`::ffff:192.0.2.1`, as dual-stack servers report them) as plain IPv4.
 * @param {string} address
 */
function unmapped(address) {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return v4 ? v4[1] : address;
}

/**
 * An event handler appending each event to `file` as one JSON line, in the order they came.
 * @param {string} file
 * @returns {(event: ServiceEvent) => Promise<void>}
 */
function eventWriter(file) {
  let last = Promise.resolve();
  return (event) => {
    const line = `${JSON.stringify(event)}\n`;
    last = last.catch(() => undefined).then(() => appendFile(file, line, 'utf8'));
    return last;
  };
}

const REGISTRATION = Symbol('iam-example-extension');

/**
 * The example's Nest module: a dynamic module (no decorators needed) that imports
 * the service's ExtensionsModule and has one provider of its own, whose factory
 * registers the hooks with the injected ExtensionHost. The options are checked
 * here, while the service loads the module: a bad address list stops the start
 * with the module's name.
 * @param {ExtensionApi} api
 * @param {ExampleOptions} options
 * @returns {DynamicModule}
 */
function exampleModule(api, options) {
  const policy = options.allowedAddresses.length > 0 ? allowList(options.allowedAddresses) : undefined;
  const writer = options.eventsFile !== undefined ? eventWriter(options.eventsFile) : undefined;
  /** @param {ExtensionHost} host */
  const register = (host) => {
    host.addClaims(api.name, exampleClaims);
    if (policy) host.addSignInPolicy(api.name, policy);
    if (writer) host.subscribe(api.name, ['*'], writer);
    return { registered: api.name };
  };
  class ExampleExtensionModule {}
  return {
    module: ExampleExtensionModule,
    imports: [api.ExtensionsModule],
    providers: [
      {
        provide: REGISTRATION,
        inject: [api.ExtensionHost],
        useFactory: register,
      },
    ],
  };
}

/** @type {ExtensionDefinition} */
const extension = {
  apiVersion: 1,
  module: (api) => exampleModule(api, optionsFromEnv(process.env)),
};

module.exports = { extension, exampleModule, exampleClaims, allowList, eventWriter, optionsFromEnv };
