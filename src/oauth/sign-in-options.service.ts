import { Inject, Injectable } from '@nestjs/common';
import { SHIPPED_LANGUAGES } from '../common/languages';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { brandAssetUrl } from '../settings/settings.mapper';
import { labelColorOn } from '../settings/brand-colors';
import { DomainError } from '../common/errors/domain-error';
import { SectorRepository } from '../sector/sector.repository';
import { SectorScopes } from '../settings/sector-scope';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { SignInOptionsQuery, SignInOptionsResponse } from './dto/sign-in-options.dto';
import { OAuthProviderRepository } from './oauth-provider.repository';

/**
 * What a sign-in page needs to know of a sector before anyone signs in: its name
 * and slugs (the page's address), whether signup and sign-in links are open,
 * whether MFA follows a password, which social buttons to show, and its look and
 * language (branding settings, default language). Public, like
 * the sign-in operations; it reveals nothing a sign-in page would not show. The
 * sector is named by id, or by its tenant's slug and its own as in the pages'
 * addresses (`/t/{tenant}/{sector}/…`).
 */
@Injectable()
export class SignInOptionsService {
  constructor(
    private readonly scopes: SectorScopes,
    private readonly directory: TenantDirectory,
    private readonly sectors: SectorRepository,
    private readonly providers: OAuthProviderRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async of(query: SignInOptionsQuery): Promise<SignInOptionsResponse> {
    const scope = await this.scopeOf(query);
    const [settings, sector, providers] = await Promise.all([
      scope.settings(),
      this.sectors.findById(scope.db, scope.route.sectorId),
      this.providers.listForSector(scope.db, scope.route.sectorId),
    ]);
    return {
      sectorID: scope.route.sectorId,
      sectorName: sector?.name ?? '',
      sectorSlug: sector?.slug ?? '',
      isDefaultSector: scope.route.isDefault,
      tenantSlug: scope.route.tenant.slug,
      selfSignUpAllowed: settings.selfSignUpAllowed,
      mfaRequired: settings.mfaRequired,
      magicLinkLoginEnabled: settings.magicLinkLoginEnabled,
      providers: providers.filter((p) => p.enabled).map((p) => p.provider),
      branding: {
        displayName: settings.brandDisplayName || sector?.name || '',
        logoURL: brandAssetUrl(this.config.publicUrl, scope.route.sectorId, 'logo', settings.brandLogoVersion),
        faviconURL: brandAssetUrl(this.config.publicUrl, scope.route.sectorId, 'favicon', settings.brandFaviconVersion),
        primaryColor: settings.brandPrimaryColor,
        primaryTextColor: settings.brandPrimaryColor && labelColorOn(settings.brandPrimaryColor),
        backgroundColor: settings.brandBackgroundColor,
        primaryColorDark: settings.brandPrimaryColorDark,
        primaryTextColorDark: settings.brandPrimaryColorDark && labelColorOn(settings.brandPrimaryColorDark),
        backgroundColorDark: settings.brandBackgroundColorDark,
        termsURL: settings.termsUrl,
        privacyURL: settings.privacyUrl,
        supportEmail: settings.supportEmail,
      },
      defaultLanguage: settings.defaultLanguage,
      languages: [...SHIPPED_LANGUAGES],
    };
  }

  private async scopeOf(query: SignInOptionsQuery) {
    if (query.tenant === undefined) {
      if (query.sector !== undefined) throw DomainError.invalidField('sector', 'names a sector of `tenant`: give `tenant` too');
      return this.scopes.forSignIn(query.sectorID);
    }
    if (query.sectorID) throw DomainError.invalidField('sectorID', 'give either `sectorID` or `tenant`, not both');
    return this.scopes.of(await this.directory.routeBySlugs(query.tenant, query.sector));
  }
}
