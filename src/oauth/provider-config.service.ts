import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { SecretBox } from '../common/crypto/secret-box';
import { DomainError, FieldViolation } from '../common/errors/domain-error';
import { outboundUrlProblem } from '../common/http/outbound';
import { SectorScope } from '../settings/sector-scope';
import { OAuthProviderAdminConfig, OAuthProvidersResponse, OAuthProviderView, StatusResponse } from './dto/oauth.dto';
import { isProviderName, OAuthProviderEntity, PROVIDER_NAMES, ProviderName } from './oauth-provider.entity';
import { OAUTH_PROVIDER_SECRET_SEAL, OAuthProviderRepository } from './oauth-provider.repository';
import { ProviderClients, ResolvedProvider } from './provider-clients';
import { AuditService } from '../audit/audit.service';

const TEXT_FIELDS = ['clientID', 'teamID', 'keyID', 'redirectURI', 'issuerURL', 'appID'] as const;
const SECRET_FIELDS = ['clientSecret', 'privateKeyPEM'] as const;
const MAX: Record<string, number> = { clientID: 512, teamID: 64, keyID: 64, appID: 64, redirectURI: 2048, issuerURL: 2048, clientSecret: 4096, privateKeyPEM: 16384 };

/**
 * The social-login providers of a sector (operation 9, and its GET for the
 * admin UI). Updates merge: a provider absent from the map is unchanged, a
 * field absent from a provider keeps its value, an empty secret keeps the
 * stored one. Secrets are sealed with the master key and never answered.
 */
@Injectable()
export class ProviderConfigService {
  constructor(
    private readonly repo: OAuthProviderRepository,
    private readonly box: SecretBox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly clients: ProviderClients,
  ) {}

  async get(scope: SectorScope): Promise<OAuthProvidersResponse> {
    const rows = await this.repo.listForSector(scope.db, scope.route.sectorId);
    const providers: Record<string, OAuthProviderView> = {};
    for (const row of rows) providers[row.provider] = view(row);
    return { providers };
  }

  async update(scope: SectorScope, providers: Record<string, unknown>): Promise<StatusResponse> {
    const violations: FieldViolation[] = [];
    const inputs: Array<[ProviderName, OAuthProviderAdminConfig]> = [];
    for (const [name, raw] of Object.entries(providers)) {
      const input = shapeOf(name, raw, violations);
      if (input) inputs.push([name as ProviderName, input]);
    }
    if (violations.length > 0) throw invalid(violations);

    const issuers: string[] = [];
    await scope.db.transaction(async (tx) => {
      await this.repo.lockSector(tx, scope.route.sectorId);
      const rows: OAuthProviderEntity[] = [];
      for (const [name, input] of inputs) {
        const stored = await this.repo.find(tx, scope.route.sectorId, name);
        const merged = merge(scope.route.sectorId, name, stored, input);
        violations.push(...check(name, merged, input, this.config.nodeEnv !== 'production'));
        rows.push(this.sealed(merged, stored));
        issuers.push(merged.row.issuerUrl, stored?.issuerUrl ?? '');
      }
      if (violations.length > 0) throw invalid(violations);
      for (const row of rows) await this.repo.upsert(tx, row);
      // Provider names and the names of the fields each sets; never a value (secrets, key PEMs).
      const changed: Record<string, string[]> = {};
      for (const [name, input] of inputs) changed[name] = ['enabled', ...TEXT_FIELDS, ...SECRET_FIELDS].filter((k) => (input as Record<string, unknown>)[k] !== undefined).sort();
      await this.audit.record(tx, {
        type: 'oauth_providers.updated',
        sectorId: scope.route.sectorId,
        target: { kind: 'sector', id: scope.route.sectorId },
        details: { providers: changed },
      });
    });
    // A saved configuration is discovered again at its next sign-in (on this instance; others within ten minutes).
    for (const issuer of issuers) if (issuer !== '') this.clients.forgetDiscovery(issuer);
    const names = inputs.map(([n]) => n);
    return { status: 'OK', message: names.length === 0 ? 'Nothing to change.' : `Updated ${names.join(', ')}.` };
  }

  /**
   * What the Test of a provider works on: the stored configuration, with
   * `raw` (one provider's entry of an update, not saved) merged over it, its
   * secrets opened (in memory only), and what is wrong with it as an enabled
   * provider (the checks of an update). A malformed `raw` is INVALID_ARGUMENT,
   * as for an update.
   */
  async candidate(scope: SectorScope, name: ProviderName, raw: unknown): Promise<{ provider: ResolvedProvider; violations: FieldViolation[] }> {
    const shapeViolations: FieldViolation[] = [];
    const input = raw === undefined ? {} : shapeOf(name, raw, shapeViolations);
    if (!input || shapeViolations.length > 0) throw invalid(shapeViolations);
    const stored = await this.repo.find(scope.db, scope.route.sectorId, name);
    const merged = merge(scope.route.sectorId, name, stored, input);
    merged.row.enabled = true;
    // Every URL is checked, given now or stored before.
    const violations = check(name, merged, { ...input, issuerURL: merged.row.issuerUrl, redirectURI: merged.row.redirectUri }, this.config.nodeEnv !== 'production');
    const { row } = merged;
    const open = (sealed: string | null | undefined) => (sealed ? this.box.open(OAUTH_PROVIDER_SECRET_SEAL, sealed).toString('utf8') : '');
    return {
      provider: {
        name,
        clientId: row.clientId,
        clientSecret: merged.clientSecret || open(stored?.clientSecretSealed),
        teamId: row.teamId,
        keyId: row.keyId,
        privateKeyPem: merged.privateKeyPem || open(stored?.privateKeySealed),
        redirectUri: row.redirectUri,
        issuerUrl: row.issuerUrl,
        appId: row.appId,
      },
      violations,
    };
  }

  /** An enabled provider of the sector with its secrets opened, or undefined. */
  async enabled(scope: SectorScope, name: ProviderName): Promise<ResolvedProvider | undefined> {
    const row = await this.repo.find(scope.db, scope.route.sectorId, name);
    if (!row || !row.enabled) return undefined;
    return {
      name,
      clientId: row.clientId,
      clientSecret: row.clientSecretSealed ? this.box.open(OAUTH_PROVIDER_SECRET_SEAL, row.clientSecretSealed).toString('utf8') : '',
      teamId: row.teamId,
      keyId: row.keyId,
      privateKeyPem: row.privateKeySealed ? this.box.open(OAUTH_PROVIDER_SECRET_SEAL, row.privateKeySealed).toString('utf8') : '',
      redirectUri: row.redirectUri,
      issuerUrl: row.issuerUrl,
      appId: row.appId,
    };
  }

  private sealed(merged: Merged, stored: OAuthProviderEntity | null): OAuthProviderEntity {
    const row = new OAuthProviderEntity();
    Object.assign(row, merged.row);
    row.clientSecretSealed = merged.clientSecret ? this.box.seal(OAUTH_PROVIDER_SECRET_SEAL, merged.clientSecret) : (stored?.clientSecretSealed ?? null);
    row.privateKeySealed = merged.privateKeyPem ? this.box.seal(OAUTH_PROVIDER_SECRET_SEAL, merged.privateKeyPem) : (stored?.privateKeySealed ?? null);
    return row;
  }
}

/** One provider's entry of an update, checked for its shape (types, lengths); undefined (and violations) when unusable. */
function shapeOf(name: string, raw: unknown, violations: FieldViolation[]): OAuthProviderAdminConfig | undefined {
  const field = `providers.${name}`;
  if (!isProviderName(name)) {
    violations.push({ field, description: `unknown provider; one of ${PROVIDER_NAMES.join(', ')}` });
    return undefined;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    violations.push({ field, description: 'must be an object' });
    return undefined;
  }
  const input = raw as Record<string, unknown>;
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') violations.push({ field: `${field}.enabled`, description: 'must be a boolean' });
  for (const key of [...TEXT_FIELDS, ...SECRET_FIELDS]) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') violations.push({ field: `${field}.${key}`, description: 'must be a string' });
    else if (value.length > MAX[key]) violations.push({ field: `${field}.${key}`, description: `must be at most ${MAX[key]} characters` });
  }
  return input as OAuthProviderAdminConfig;
}

interface Merged {
  row: Omit<OAuthProviderEntity, 'clientSecretSealed' | 'privateKeySealed' | 'updatedAt'>;
  /** New secret values given in this update ('' when kept). */
  clientSecret: string;
  privateKeyPem: string;
  hasClientSecret: boolean;
  hasPrivateKey: boolean;
}

function merge(sectorId: string, name: ProviderName, stored: OAuthProviderEntity | null, input: OAuthProviderAdminConfig): Merged {
  const pick = (given: string | undefined, old: string | undefined) => (given === undefined ? (old ?? '') : given.trim());
  const clientSecret = input.clientSecret ?? '';
  const privateKeyPem = (input.privateKeyPEM ?? '').trim();
  return {
    row: {
      id: stored?.id ?? randomUUID(),
      sectorId,
      provider: name,
      enabled: input.enabled ?? stored?.enabled ?? false,
      clientId: pick(input.clientID, stored?.clientId),
      teamId: pick(input.teamID, stored?.teamId),
      keyId: pick(input.keyID, stored?.keyId),
      redirectUri: pick(input.redirectURI, stored?.redirectUri),
      issuerUrl: pick(input.issuerURL, stored?.issuerUrl),
      appId: pick(input.appID, stored?.appId),
    },
    clientSecret,
    privateKeyPem,
    hasClientSecret: clientSecret !== '' || !!stored?.clientSecretSealed,
    hasPrivateKey: privateKeyPem !== '' || !!stored?.privateKeySealed,
  };
}

/** The violations of a merged configuration: given values must be well-formed; an enabled provider must be usable. */
function check(name: ProviderName, merged: Merged, input: OAuthProviderAdminConfig, allowLoopbackHttp: boolean): FieldViolation[] {
  const out: FieldViolation[] = [];
  const f = (field: string) => `providers.${name}.${field}`;
  const { row } = merged;
  if (input.redirectURI !== undefined && row.redirectUri !== '' && !isHttpUrl(row.redirectUri)) out.push({ field: f('redirectURI'), description: 'must be an absolute http(s) URL' });
  if (input.issuerURL !== undefined && row.issuerUrl !== '') {
    if (!isHttpUrl(row.issuerUrl)) out.push({ field: f('issuerURL'), description: 'must be an absolute http(s) URL' });
    else if (/[?#]/.test(row.issuerUrl)) out.push({ field: f('issuerURL'), description: 'must have no query or fragment (an OpenID issuer is a plain https URL)' });
    else {
      // The outbound rules, judged from the URL: https (http only to loopback outside production), no loopback in production, no private, link-local or reserved address.
      const problem = outboundUrlProblem(new URL(row.issuerUrl), allowLoopbackHttp);
      if (problem) out.push({ field: f('issuerURL'), description: problem });
    }
  }
  if (merged.privateKeyPem !== '') {
    const expected = name === 'apple' ? 'ec' : name === 'github' ? 'rsa' : undefined;
    if (!expected) out.push({ field: f('privateKeyPEM'), description: `is not used by ${name}` });
    else {
      const problem = pemProblem(merged.privateKeyPem, expected);
      if (problem) out.push({ field: f('privateKeyPEM'), description: problem });
    }
  }
  if (row.enabled) {
    if (row.clientId === '') out.push({ field: f('clientID'), description: 'is required for an enabled provider' });
    if (row.redirectUri === '') out.push({ field: f('redirectURI'), description: 'is required for an enabled provider' });
    if (name === 'oidc' && row.issuerUrl === '') out.push({ field: f('issuerURL'), description: 'is required for the generic OpenID provider' });
    if (name === 'apple') {
      if (row.teamId === '') out.push({ field: f('teamID'), description: 'is required for Apple' });
      if (row.keyId === '') out.push({ field: f('keyID'), description: 'is required for Apple' });
      if (!merged.hasPrivateKey) out.push({ field: f('privateKeyPEM'), description: "is required for Apple (the team's EC P-256 key)" });
    }
    if (name === 'github') {
      if (row.appId !== '' && !merged.hasPrivateKey) out.push({ field: f('privateKeyPEM'), description: "is required for a GitHub App (the app's RSA key)" });
      if (row.appId === '' && !merged.hasClientSecret) out.push({ field: f('clientSecret'), description: 'is required for GitHub (or appID and privateKeyPEM for a GitHub App)' });
    }
  }
  return out;
}

function pemProblem(pem: string, expected: 'ec' | 'rsa'): string | undefined {
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== expected) return expected === 'ec' ? 'must be an EC P-256 private key (PEM)' : 'must be an RSA private key (PEM)';
    if (expected === 'ec' && key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return 'must be an EC P-256 private key (PEM)';
    if (expected === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return 'must be an RSA key of at least 2048 bits';
    return undefined;
  } catch {
    return 'is not a PEM private key';
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.host !== '' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

function invalid(violations: FieldViolation[]): DomainError {
  return DomainError.invalidArgument(`Invalid request: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`, violations);
}

function view(row: OAuthProviderEntity): OAuthProviderView {
  return {
    enabled: row.enabled,
    clientID: row.clientId,
    clientSecretSet: row.clientSecretSealed !== null,
    teamID: row.teamId,
    keyID: row.keyId,
    privateKeyPEMSet: row.privateKeySealed !== null,
    redirectURI: row.redirectUri,
    issuerURL: row.issuerUrl,
    appID: row.appId,
  };
}
