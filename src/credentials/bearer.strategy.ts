import { Injectable } from '@nestjs/common';
import passport from 'passport';
import { Strategy } from 'passport-custom';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { headerValue, IncomingRequest } from '../common/http/request';
import { CredentialService } from './credential.service';
import { Principal } from '../access/principal';

export const BEARER_STRATEGY = 'bearer';

/** The credential of an `Authorization: Bearer <credential>` header; CREDENTIAL_MISSING otherwise. */
export function bearerCredential(header: string | undefined): string {
  const match = header ? /^Bearer[ ]+([^\s]+)\s*$/i.exec(header) : null;
  if (!match) {
    throw DomainError.unauthenticated(Reason.CREDENTIAL_MISSING, 'A bearer credential is required (Authorization: Bearer <token>).');
  }
  return match[1];
}

/**
 * The bearer passport strategy: the credential travels only as
 * `Authorization: Bearer <credential>`. It is registered, as `bearer`, on this
 * application's own passport `Authenticator`, not on passport's process-wide
 * default instance: two instances of the service in one process (the
 * multi-instance tests run that) each authenticate with their own caches.
 */
@Injectable()
export class BearerStrategy {
  readonly passport = new passport.Authenticator();

  constructor(private readonly credentials: CredentialService) {
    this.passport.use(
      BEARER_STRATEGY,
      new Strategy((req, done) => {
        this.validate(req as unknown as IncomingRequest).then(
          (principal) => done(null, principal),
          (err: unknown) => done(err),
        );
      }),
    );
  }

  validate(req: IncomingRequest): Promise<Principal> {
    return this.credentials.authenticate(bearerCredential(headerValue(req, 'authorization')));
  }
}
