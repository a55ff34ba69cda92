import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';
import { AfterSignOut, SignOut, SignOutHook, SignOutHooks } from '../user/sign-out-hooks';
import { OidcProviders } from './oidc-providers';
import { EndedProviderSession, OidcStorageRepository } from './oidc-storage.repository';

interface SessionPayload {
  accountId?: string;
  authorizations?: Record<string, { sid?: string } | undefined>;
}

/**
 * A client as the library models it, with the method its own RP-initiated logout
 * uses to send a logout token (signed like the client's ID tokens, delivered
 * through the provider's outbound fetch); its type declarations leave it out.
 */
interface BackChannelClient {
  backchannelLogoutUri?: string;
  backchannelLogout(sub: string, sid: string): Promise<void>;
}

/**
 * Ends the OpenID Provider sessions that came from the service's sessions when
 * those end (sign-out, revocation, a password change or reset, deleting the
 * user): in the same transaction the provider sessions go, with every code and
 * token issued in them (refresh tokens fail, introspection answers inactive);
 * after the commit, each app the session signed in to that registered a
 * `backchannel_logout_uri` gets a logout token (OpenID Connect Back-Channel
 * Logout 1.0) naming the user and the session's `sid` for that app.
 */
@Injectable()
export class OidcSignOut implements SignOutHook, OnModuleInit {
  private readonly logger = new Logger('OpenIDProvider');

  constructor(
    private readonly hooks: SignOutHooks,
    private readonly storage: OidcStorageRepository,
    private readonly providers: OidcProviders,
  ) {}

  onModuleInit(): void {
    this.hooks.register(this);
  }

  async signedOut(tx: TenantDb, what: SignOut): Promise<AfterSignOut | undefined> {
    const ended = await this.storage.endSessions(
      tx,
      what.kind === 'sessions'
        ? { kind: 'sessions', serviceSessionIds: what.sessionIds }
        : { kind: 'account', accountId: what.userId, exceptServiceSessionId: what.exceptSessionId, everything: what.userDeleted },
    );
    if (ended.length === 0) return undefined;
    return () => this.notify(ended);
  }

  /** Back-channel logout tokens to every app of the ended sessions that asked for them; a failed delivery is logged. */
  private async notify(ended: EndedProviderSession[]): Promise<void> {
    const deliveries: Array<Promise<void>> = [];
    for (const { sectorId, payload } of ended) {
      const session = payload as SessionPayload;
      if (!session.accountId || !session.authorizations) continue;
      const issuer = await this.providers.issuerOfSector(sectorId);
      if (!issuer) continue;
      for (const [clientId, authorization] of Object.entries(session.authorizations)) {
        deliveries.push(
          (async () => {
            const client = (await issuer.provider.Client.find(clientId)) as BackChannelClient | undefined;
            if (!client?.backchannelLogoutUri) return;
            await client.backchannelLogout(session.accountId as string, authorization?.sid as string);
          })().catch((err: unknown) => this.logger.warn(`${issuer.issuer}: back-channel logout to ${clientId} failed: ${err instanceof Error ? err.message : String(err)}`)),
        );
      }
    }
    await Promise.all(deliveries);
  }
}
