import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { SectorRepository } from '../sector/sector.repository';
import { SectorScope } from '../settings/sector-scope';
import { isUsableRelyingParty, RelyingParty, resolveRelyingParty } from '../settings/relying-party';

/** The relying party of a request's sector, read from the sector and its settings. */
@Injectable()
export class RelyingParties {
  constructor(private readonly sectors: SectorRepository) {}

  async of(scope: SectorScope): Promise<RelyingParty> {
    const [sector, settings] = await Promise.all([this.sectors.findById(scope.db, scope.route.sectorId), scope.settings()]);
    if (!sector) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    return resolveRelyingParty(sector, settings);
  }

  /** The sector's relying party, or FAILED_PRECONDITION / WEBAUTHN_NOT_CONFIGURED when browsers could not use it. */
  async usable(scope: SectorScope): Promise<RelyingParty> {
    const rp = await this.of(scope);
    if (!isUsableRelyingParty(rp)) {
      throw DomainError.failedPrecondition(
        Reason.WEBAUTHN_NOT_CONFIGURED,
        'Passkeys are not configured for this sector: it needs an RP ID (WebAuthnRPID or its domain) and https origins on it (WebAuthnRPOrigins or its allowed origins).',
      );
    }
    return rp;
  }
}
