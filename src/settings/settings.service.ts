import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantDb } from '../tenancy/tenant-db';
import { resolveRelyingParty, settingsConfigureRelyingParty } from './relying-party';
import { SectorSettingsResponse, UpdateSectorSettingsDto } from './dto/sector-settings.dto';
import { LocalizedTemplates, SectorSettingsEntity } from './sector-settings.entity';
import { contrastFailure } from './brand-colors';
import { settingsFieldsSet, toSettingsPatch, toSettingsResponse } from './settings.mapper';
import { SettingsRepository } from './settings.repository';
import { relyingPartyViolations } from './settings.validation';
import { magicLinkUrlProblem } from './magic-link-url';
import { SectorScope } from './sector-scope';
import { Principal } from '../access/principal';
import { AuditService } from '../audit/audit.service';

/** Settings that route credentials (links with tokens, passkey binding): a signed-in admin's to change, never an API token's. */
const CREDENTIAL_ROUTING_SETTINGS = ['MagicLinkURL', 'WebAuthnRPID', 'WebAuthnRPOrigins'] as const;

/** Operations 1 and 2: a sector's security settings. */
@Injectable()
export class SettingsService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly audit: AuditService,
    private readonly cache: AuthStateCache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(scope: SectorScope): Promise<SectorSettingsResponse> {
    return toSettingsResponse(await scope.settings(), this.config.publicUrl);
  }

  /**
   * Merges the fields present into the stored settings. An update that changes
   * WebAuthnRPID or WebAuthnRPOrigins must leave a relying party browsers accept
   * (checked on the merged result, with the sector's domain and allowed origins
   * standing in for empty settings) unless it leaves both empty; it runs with the
   * settings row locked, so two concurrent updates cannot each pass the check
   * and together store a relying party that fails it. A MagicLinkURL set must be
   * https (http only for localhost outside production) on PUBLIC_URL's origin or
   * one of the sector's allowedOrigins (empty: the default links).
   */
  async update(scope: SectorScope, dto: UpdateSectorSettingsDto, caller?: Principal): Promise<SectorSettingsResponse> {
    // An API token configures its sector but never where credentials go: the links that carry
    // invitation tokens, and the relying party and origins passkeys are bound to.
    if (caller?.kind === 'apiToken') {
      for (const field of CREDENTIAL_ROUTING_SETTINGS) {
        if (dto[field] !== undefined) throw DomainError.permissionDenied(`API tokens may not change ${field}.`, Reason.FIELD_NOT_WRITABLE);
      }
    }
    const patch = toSettingsPatch(dto);
    const sectorId = scope.route.sectorId;
    const touchesRelyingParty = patch.webauthnRpId !== undefined || patch.webauthnRpOrigins !== undefined;
    // The names of the fields the request sets (never their values) go to the audit trail with the change.
    const fields = settingsFieldsSet(dto);
    const touchesColors = BRAND_COLORS.some(([, primary, background]) => patch[primary] !== undefined || patch[background] !== undefined);
    const row = await scope.db.transaction(async (tx) => {
      if (patch.magicLinkUrl) await this.assertMagicLinkUrlAllowed(tx, sectorId, patch.magicLinkUrl);
      if (touchesRelyingParty) await this.assertRelyingPartyUsable(tx, sectorId, patch);
      if (touchesColors || dto.LocalizedTemplates) {
        // Checked and merged on the stored row, locked: concurrent updates cannot each pass alone and store a failing pair, or drop each other's languages.
        const stored = await lockedSettings(tx, sectorId);
        if (touchesColors) assertContrast({ ...stored, ...patch }, patch);
        if (dto.LocalizedTemplates) patch.localizedTemplates = mergeLocalizedTemplates(stored.localizedTemplates, dto.LocalizedTemplates);
      }
      const updated = await this.settings.update(tx, sectorId, patch);
      if (updated) await this.audit.record(tx, { type: 'settings.updated', sectorId, target: { kind: 'sector', id: sectorId }, details: { fields } });
      return updated;
    });
    if (!row) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    this.cache.forget(scope.route.tenant, `s:${sectorId}`);
    return toSettingsResponse(row, this.config.publicUrl);
  }

  /** VALIDATION_FAILED naming MagicLinkURL when the links it would carry tokens to are not on a trusted https origin. */
  private async assertMagicLinkUrlAllowed(tx: TenantDb, sectorId: string, value: string): Promise<void> {
    const sector = await sectorFacts(tx, sectorId);
    if (!sector) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    const problem = magicLinkUrlProblem(value, this.config.publicUrl, sector.allowedOrigins, this.config.nodeEnv === 'production');
    if (problem) throw DomainError.invalidArgument(`Invalid request: MagicLinkURL: ${problem}`, [{ field: 'MagicLinkURL', description: problem }]);
  }

  /** VALIDATION_FAILED naming WebAuthnRPID or WebAuthnRPOrigins when the merged settings configure a relying party browsers would refuse. */
  private async assertRelyingPartyUsable(tx: TenantDb, sectorId: string, patch: Partial<SectorSettingsEntity>): Promise<void> {
    const merged = { ...(await lockedSettings(tx, sectorId)), ...patch };
    if (!settingsConfigureRelyingParty(merged)) return;
    const sector = await sectorFacts(tx, sectorId);
    const rp = resolveRelyingParty({ name: sector?.name ?? '', domain: sector?.domain ?? '', allowedOrigins: sector?.allowedOrigins ?? [] }, merged);
    const mismatchField = patch.webauthnRpId !== undefined && patch.webauthnRpOrigins === undefined ? 'WebAuthnRPID' : 'WebAuthnRPOrigins';
    const violations = relyingPartyViolations({ rpId: rp.id, origins: rp.origins }, mismatchField);
    if (violations.length > 0) {
      throw DomainError.invalidArgument(`Invalid request: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`, violations);
    }
  }
}

/** The light and dark colour pairs: mode, primary column, background column (and their wire names). */
const BRAND_COLORS = [
  ['light', 'brandPrimaryColor', 'brandBackgroundColor', 'BrandPrimaryColor', 'BrandBackgroundColor'],
  ['dark', 'brandPrimaryColorDark', 'brandBackgroundColorDark', 'BrandPrimaryColorDark', 'BrandBackgroundColorDark'],
] as const;

/** The sector's settings row, locked for the rest of the transaction. */
async function lockedSettings(tx: TenantDb, sectorId: string): Promise<SectorSettingsEntity> {
  const stored = await tx.manager.getRepository(SectorSettingsEntity).findOne({ where: { sectorId }, lock: { mode: 'pessimistic_write' } });
  if (!stored) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
  return stored;
}

/**
 * VALIDATION_FAILED when the merged colours of a mode would miss WCAG AA contrast on the
 * pages, naming the colour this request set (the one the failed rule concerns when it set both).
 */
function assertContrast(merged: SectorSettingsEntity, patch: Partial<SectorSettingsEntity>): void {
  for (const [mode, primary, background, primaryWire, backgroundWire] of BRAND_COLORS) {
    const failure = contrastFailure(mode, { primary: merged[primary], background: merged[background] });
    if (!failure) continue;
    const setPrimary = patch[primary] !== undefined;
    const setBackground = patch[background] !== undefined;
    const field = setPrimary && setBackground ? (failure.color === 'primary' ? primaryWire : backgroundWire) : setPrimary ? primaryWire : backgroundWire;
    throw DomainError.invalidArgument(`Invalid request: ${field}: ${failure.message}`, [{ field, description: failure.message }]);
  }
}

/** The stored per-language templates with those of the request: a language given replaces its own, `{}` removes it. */
function mergeLocalizedTemplates(stored: LocalizedTemplates, given: LocalizedTemplates): LocalizedTemplates {
  const merged: LocalizedTemplates = { ...stored };
  for (const [language, templates] of Object.entries(given)) {
    if (Object.keys(templates).length === 0) delete merged[language];
    else merged[language] = { ...templates };
  }
  return merged;
}

/**
 * What settings are checked against: the sector's name, domain and allowed origins (a
 * read of the sectors table, which src/sector owns; settings sit below it).
 */
async function sectorFacts(tx: TenantDb, sectorId: string): Promise<{ name: string; domain: string; allowedOrigins: string[] } | undefined> {
  const [row] = await tx.rows<{ name: string; domain: string; allowed_origins: string[] | null }>('SELECT name, domain, allowed_origins FROM sectors WHERE id = $1', [sectorId]);
  return row && { name: row.name, domain: row.domain, allowedOrigins: row.allowed_origins ?? [] };
}
