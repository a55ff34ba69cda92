// A test-only extension module (CommonJS): a claims contributor that fails while the
// spec sets `globalThis.iamTestClaimsDown` (the spec and the module share the test's globals).
exports.extension = {
  apiVersion: 1,
  module(api) {
    class SwitchableClaimsModule {}
    const register = (host) => {
      host.addClaims(api.name, () => {
        if (globalThis.iamTestClaimsDown) throw new Error('the claims backend is down');
        return { switchable: 'up' };
      });
      return true;
    };
    return { module: SwitchableClaimsModule, imports: [api.ExtensionsModule], providers: [{ provide: 'switchable-claims', inject: [api.ExtensionHost], useFactory: register }] };
  },
};
