/**
 * Shapes of the API's requests and answers, generated from the service's OpenAPI
 * document (`npm run generate:api` writes ./schema.d.ts; a test fails when it is
 * stale). The console names the ones it uses here and in each area's own types.
 */
import type { components } from './schema';

/** Every schema of the OpenAPI document, by name. */
export type Schemas = components['schemas'];

export type Address = Schemas['AddressResponse'];
export type UserProfile = Schemas['UserProfileResponse'];
/** A profile as a request carries it: every field optional. */
export type UserProfileInput = Schemas['UserProfileInput'];
