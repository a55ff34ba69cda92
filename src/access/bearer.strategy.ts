import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-custom';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { headerValue, IncomingRequest } from '../common/http/request';
import { CredentialService } from './credential.service';
import { Principal } from './principal';

export const BEARER_STRATEGY = 'bearer';

/** The credential of an `Authorization: Bearer <credential>` header; CREDENTIAL_MISSING otherwise. */
export function bearerCredential(header: string | undefined): string {
  const match = header ? /^Bearer[ ]+([^\s]+)\s*$/i.exec(header) : null;
  if (!match) {
    throw DomainError.unauthenticated(Reason.CREDENTIAL_MISSING, 'A bearer credential is required (Authorization: Bearer <token>).');
  }
  return match[1];
}

/** Passport strategy: the credential travels only as `Authorization: Bearer <credential>`. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, BEARER_STRATEGY) {
  constructor(private readonly credentials: CredentialService) {
    super();
  }

  async validate(req: IncomingRequest): Promise<Principal> {
    return this.credentials.authenticate(bearerCredential(headerValue(req, 'authorization')));
  }
}
