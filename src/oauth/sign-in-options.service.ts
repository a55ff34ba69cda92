import { Injectable } from '@nestjs/common';
import { SectorRepository } from '../sector/sector.repository';
import { SectorScopes } from '../settings/sector-scope';
import { SignInOptionsResponse } from './dto/sign-in-options.dto';
import { OAuthProviderRepository } from './oauth-provider.repository';

/**
 * What a sign-in page needs to know of a sector before anyone signs in: its name,
 * whether signup and sign-in links are open, whether MFA follows a password, and
 * which social buttons to show. Public, like the sign-in operations; it reveals
 * nothing a sign-in page would not show.
 */
@Injectable()
export class SignInOptionsService {
  constructor(
    private readonly scopes: SectorScopes,
    private readonly sectors: SectorRepository,
    private readonly providers: OAuthProviderRepository,
  ) {}

  async of(sectorId: string | undefined): Promise<SignInOptionsResponse> {
    const scope = await this.scopes.forSignIn(sectorId);
    const [settings, sector, providers] = await Promise.all([
      scope.settings(),
      this.sectors.findById(scope.db, scope.route.sectorId),
      this.providers.listForSector(scope.db, scope.route.sectorId),
    ]);
    return {
      sectorID: scope.route.sectorId,
      sectorName: sector?.name ?? '',
      selfSignUpAllowed: settings.selfSignUpAllowed,
      mfaRequired: settings.mfaRequired,
      magicLinkLoginEnabled: settings.magicLinkLoginEnabled,
      providers: providers.filter((p) => p.enabled).map((p) => p.provider),
    };
  }
}
