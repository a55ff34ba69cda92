import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SecretBox } from '../common/crypto/secret-box';
import { outboundFetch } from '../common/http/outbound';
import { isUuid } from '../common/wire/wire';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { KeyService } from '../keys/key.service';
import { DirectoryChanges } from '../tenancy/directory-changes';
import { TenantConnections } from '../tenancy/tenant-connections';
import { SectorRoute, TenantDirectory } from '../tenancy/tenant-directory';
import { UserEntity } from '../user/user.entity';
import { UserRepository } from '../user/user.repository';
import { calledUrlProblem } from './called-urls';
import { interactionId } from './interaction-id';
import { oidcAdapterFactory, OidcStorageScope } from './oidc-adapter';
import { OidcAccount, oidcConfiguration, OidcTokenSource } from './oidc-configuration';
import { OidcClientStore } from './oidc-client-store';
import { OidcStorageRepository } from './oidc-storage.repository';

type OidcLibrary = typeof import('oidc-provider', { with: { 'resolution-mode': 'import' } });
/** One issuer's `oidc-provider` Provider. */
type OidcProvider = InstanceType<OidcLibrary['default']>;
type ProviderConfiguration = ConstructorParameters<OidcLibrary['default']>[1];

/** One sector's OpenID Provider, ready to serve. */
export interface OidcIssuer {
  issuer: string;
  route: SectorRoute;
  provider: OidcProvider;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** Issuers kept built at once (least recently used dropped first). */
const ISSUERS_MAX = 500;
/** A built issuer is rebuilt after this long (a renamed or removed sector stops answering by then). */
const ISSUER_TTL_MS = 10 * 60_000;
const OUTBOUND_TIMEOUT_MS = 5_000;
const COOKIE_KEY_PURPOSE = 'oidc-cookies';

let library: Promise<OidcLibrary> | undefined;

/**
 * Loads `oidc-provider` (ESM) once. Its load-time notices (an unsupported runtime
 * on Node 20) go to the service's log instead of the console. (Its outbound calls
 * still go through the service's own fetch and its connection-time checks.)
 */
function loadLibrary(logger: Logger): Promise<OidcLibrary> {
  library ??= (async () => {
    /* eslint-disable no-console -- the library writes its notices to the console; they are passed on to the log */
    const { warn, info } = console;
    console.warn = (...args: unknown[]) => logger.warn(args.join(' '));
    console.info = (...args: unknown[]) => logger.log(args.join(' '));
    try {
      const loaded = await import('oidc-provider');
      // The library guards its outbound calls with the runtime's global HTTP dispatcher, which Node makes on its
      // first fetch; without one it warns on the console at its first call. A data: URL makes it without a request.
      await fetch('data:,').catch(() => undefined);
      return loaded;
    } finally {
      Object.assign(console, { warn, info });
    }
    /* eslint-enable no-console */
  })();
  return library;
}

/** RFC 8628's polling interval, in seconds: stated in every device authorization answer, enforced with `slow_down`. */
const DEVICE_POLL_INTERVAL_SECONDS = 5;
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

type ProviderMiddleware = Parameters<OidcProvider['use']>[0];

/**
 * What the library leaves out of RFC 8628, added around it (its documented
 * post-middleware): the `interval` in the device authorization answer, and
 * `slow_down` instead of `authorization_pending` for a device that polls again
 * sooner than the interval (the poll times are kept with the device code).
 */
function devicePolling(storage: OidcStorageRepository, scope: OidcStorageScope): ProviderMiddleware {
  return async (ctx, next) => {
    await next();
    const route = ctx.oidc?.route;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (route === 'device_authorization' && ctx.status === 200 && body && typeof body === 'object') {
      body.interval = DEVICE_POLL_INTERVAL_SECONDS;
    } else if (route === 'token' && body?.error === 'authorization_pending' && ctx.oidc?.params?.grant_type === DEVICE_CODE_GRANT) {
      const previous = await storage.notePoll(await scope.db(), scope.sectorId, String(ctx.oidc.params.device_code));
      if (previous && Date.now() - previous.getTime() < DEVICE_POLL_INTERVAL_SECONDS * 1000) {
        ctx.body = { error: 'slow_down', error_description: `poll at most every ${DEVICE_POLL_INTERVAL_SECONDS} seconds` };
      }
    }
  };
}

/** OpenID Connect claims of a user, as the scopes release them (empty values left out). */
function userClaims(user: UserEntity): Record<string, unknown> {
  const address = Object.fromEntries(
    Object.entries({
      formatted: user.address?.formatted,
      street_address: user.address?.streetAddress,
      locality: user.address?.locality,
      region: user.address?.region,
      postal_code: user.address?.postalCode,
      country: user.address?.country,
    }).filter(([, v]) => v),
  );
  const claims: Record<string, unknown> = {
    sub: user.id,
    name: user.name,
    given_name: user.givenName,
    family_name: user.familyName,
    middle_name: user.middleName,
    nickname: user.nickname,
    preferred_username: user.preferredUsername || user.username,
    profile: user.profile,
    picture: user.picture,
    website: user.website,
    gender: user.gender,
    birthdate: user.birthdate,
    zoneinfo: user.zoneinfo,
    locale: user.locale,
    updated_at: Math.floor(user.updatedAt.getTime() / 1000),
    email: user.email,
    email_verified: user.email ? user.emailVerified : undefined,
    phone_number: user.phoneNumber,
    phone_number_verified: user.phoneNumber ? user.phoneNumberVerified : undefined,
    address: Object.keys(address).length > 0 ? address : undefined,
  };
  return Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== '' && v !== undefined));
}

/**
 * Every sector's OpenID Provider, built on first use from its tenant's keys and
 * kept (a bounded, least-recently-used set); any signing-key or tenant change
 * announced on the directory channel drops them all, so the next request builds
 * them with the keys as they are. Everything a provider stores is in the tenant's
 * database, so a dropped or rebuilt provider, another instance or a restart
 * carries on every flow.
 */
@Injectable()
export class OidcProviders {
  private readonly logger = new Logger('OpenIDProvider');
  private readonly issuers = new Map<string, { at: number; issuer: Promise<OidcIssuer | undefined> }>();
  private readonly fetch;
  /** OUTBOUND_ALLOW_PRIVATE_NETWORKS: apps' registered URLs may be http and private addresses (development and tests). */
  readonly allowsPrivateNetworks: boolean;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly keys: KeyService,
    private readonly storage: OidcStorageRepository,
    private readonly clients: OidcClientStore,
    private readonly users: UserRepository,
    private readonly box: SecretBox,
    changes: DirectoryChanges,
  ) {
    this.allowsPrivateNetworks = config.outboundAllowPrivateNetworks;
    // URLs apps registered (back-channel logout, key sets): https to public addresses only, unless OUTBOUND_ALLOW_PRIVATE_NETWORKS.
    this.fetch = outboundFetch({ allowLoopback: false, allowPrivateNetworks: this.allowsPrivateNetworks, timeoutMs: OUTBOUND_TIMEOUT_MS });
    changes.subscribe(() => this.issuers.clear());
  }

  /** The issuer URL of a sector. */
  issuerUrl(tenantSlug: string, sectorSlug: string): string {
    return `${this.config.publicUrl}/oidc/${tenantSlug}/${sectorSlug}`;
  }

  /** The OpenID Provider of sector `sectorSlug` of tenant `tenantSlug`, or undefined when there is no such sector. */
  async issuer(tenantSlug: string, sectorSlug: string): Promise<OidcIssuer | undefined> {
    const key = `${tenantSlug}/${sectorSlug}`;
    const hit = this.issuers.get(key);
    if (hit && Date.now() - hit.at < ISSUER_TTL_MS) {
      const built = await hit.issuer;
      // Signs with the tenant's current keys: a rotation (here or, before its notice arrives, elsewhere) rebuilds it.
      const tenant = built && (await this.directory.tenantById(built.route.tenant.id));
      if (built && tenant && tenant.kid === built.route.tenant.kid && tenant.rsaKid === built.route.tenant.rsaKid) {
        this.issuers.delete(key);
        this.issuers.set(key, hit);
        return built;
      }
      if (this.issuers.get(key) === hit) this.issuers.delete(key);
    }
    const issuer = this.build(tenantSlug, sectorSlug);
    this.issuers.set(key, { at: Date.now(), issuer });
    if (this.issuers.size > ISSUERS_MAX) this.issuers.delete(this.issuers.keys().next().value as string);
    // A failed or empty build is not kept: the next request tries again.
    issuer.then(
      (built) => !built && this.issuers.get(key)?.issuer === issuer && this.issuers.delete(key),
      () => this.issuers.get(key)?.issuer === issuer && this.issuers.delete(key),
    );
    return issuer;
  }

  /** The OpenID Provider of a sector given by id, or undefined when there is no such sector. */
  async issuerOfSector(sectorId: string): Promise<OidcIssuer | undefined> {
    const slug = await this.directory.sectorSlug(sectorId);
    if (!slug) return undefined;
    const route = await this.directory.routeSector(sectorId).catch(() => undefined);
    return route ? this.issuer(route.tenant.slug, slug) : undefined;
  }

  private async build(tenantSlug: string, sectorSlug: string): Promise<OidcIssuer | undefined> {
    const found = await this.directory.tenantBySlug(tenantSlug);
    if (!found) return undefined;
    const route = await this.directory.sectorBySlug(found, sectorSlug);
    if (!route) return undefined;
    await this.keys.ensureRsaKey(found);
    const tenant = await this.directory.requireTenant(found.id);
    const { default: Provider, errors } = await loadLibrary(this.logger);
    const scope: OidcStorageScope = {
      sectorId: route.sectorId,
      db: async () => this.connections.db(await this.directory.requireTenant(tenant.id)),
    };
    const issuer = this.issuerUrl(tenantSlug, sectorSlug);
    const provider = new Provider(
      issuer,
      oidcConfiguration({
        adapter: oidcAdapterFactory(this.storage, this.clients, scope, (metadata) => {
          const called = calledUrlProblem(metadata, this.allowsPrivateNetworks);
          if (called) throw new errors.InvalidClientMetadata(called.description);
        }),
        jwks: await this.keys.tenantSigningJwks(tenant),
        cookieKeys: [this.box.mac(COOKIE_KEY_PURPOSE, `${tenant.id}:${route.sectorId}`)],
        interactionUrl: (uid) => {
          const id = interactionId(route.sectorId, uid);
          return `${this.config.publicUrl}/api/v1/oidc/interactions/${id}?interaction=${id}&sector=${route.sectorId}`;
        },
        findAccount: (sub, source) => this.account(scope, sub, source),
        grants: async (sub) => (isUuid(sub) ? this.users.grantsOf(await scope.db(), sub) : undefined),
        fetch: this.fetch,
        invalidRequest: errors.InvalidRequest,
      }) as ProviderConfiguration,
    );
    // Every URL the provider builds is under PUBLIC_URL: the HTTP mount sets the forwarded host and protocol from it.
    provider.proxy = true;
    provider.use(devicePolling(this.storage, scope));
    provider.on('backchannel.error', (_ctx: unknown, err: unknown, client: { clientId: string }) =>
      this.logger.warn(`${issuer}: back-channel logout to ${client.clientId} failed: ${err instanceof Error ? err.message : String(err)}`),
    );
    provider.on('server_error', (_ctx: unknown, err: unknown) => this.logger.error(`${issuer}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
    const handle = provider.callback();
    return { issuer, route: { ...route, tenant }, provider, handle: (req, res) => void handle(req, res) };
  }

  /**
   * The account behind `sub` in this issuer's sector. For an ID token issued from a
   * code, refresh token or device code, its claims carry the provider session's id
   * for the app (`sid`): the artifact's own when the library put one in, else the one
   * its session keeps for the app (the library records it only when asked).
   */
  private async account(scope: OidcStorageScope, sub: string, source: OidcTokenSource | undefined): Promise<OidcAccount | undefined> {
    if (!isUuid(sub)) return undefined;
    const db = await scope.db();
    const user = await this.users.findById(db, sub);
    // A disabled user is no account: their codes and refresh tokens are refused.
    if (!user || user.sectorId !== scope.sectorId || user.disabledAt) return undefined;
    const sid = async (): Promise<string | undefined> => {
      if (typeof source?.sid === 'string') return source.sid;
      if (typeof source?.sessionUid !== 'string' || typeof source.clientId !== 'string') return undefined;
      const session = await this.storage.findBy(db, scope.sectorId, 'Session', 'uid', source.sessionUid);
      const authorization = (session?.authorizations as Record<string, { sid?: unknown } | undefined> | undefined)?.[source.clientId];
      return typeof authorization?.sid === 'string' ? authorization.sid : undefined;
    };
    return {
      accountId: user.id,
      claims: async (use) => {
        const [id, grants] = await Promise.all([use === 'id_token' ? sid() : undefined, this.users.grantsOf(db, user.id)]);
        return { ...userClaims(user), ...grants, ...(id ? { sid: id } : {}) };
      },
    };
  }
}
