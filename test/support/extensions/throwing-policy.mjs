// A test-only extension module, an ES module (the service loads both kinds): its
// sign-in policy throws, so every sign-in that would succeed is refused (UNAVAILABLE).
export const extension = {
  apiVersion: 1,
  module(api) {
    class ThrowingPolicyModule {}
    const register = (host) => {
      host.addSignInPolicy(api.name, () => {
        throw new Error('the policy backend is down');
      });
      return true;
    };
    return { module: ThrowingPolicyModule, imports: [api.ExtensionsModule], providers: [{ provide: 'throwing-policy', inject: [api.ExtensionHost], useFactory: register }] };
  },
};
