import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientRegistrant } from './oidc-storage.repository';

/** What the HTTP mount learned about one provider request before handing it to the library. */
export interface OidcCall {
  /** A dynamic registration's caller, once its initial access token was accepted. */
  registrant?: ClientRegistrant;
  /**
   * The service session whose access token finished the sign-in request this
   * request resumes (read from the request's stored result): the provider session
   * the library saves next records it as its origin.
   */
  serviceSessionId?: string;
}

const calls = new AsyncLocalStorage<OidcCall>();

/** Runs one provider request with what the mount learned about it. */
export function runOidcCall<T>(call: OidcCall, work: () => T): T {
  return calls.run(call, work);
}

/** The current provider request's facts (empty outside one). */
export function currentOidcCall(): OidcCall {
  return calls.getStore() ?? {};
}
