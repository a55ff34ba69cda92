import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../access/principal';
import { hashSecretToken } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { unixSeconds } from '../common/wire/wire';
import { AccessTokenService } from '../keys/access-token.service';
import { TokenClaims } from '../keys/token-claims';
import { SectorScope, SectorScopes } from '../settings/sector-scope';
import { newRoutedId, tenantOfRoutedId } from '../tenancy/routed-id';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDb } from '../tenancy/tenant-db';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { UserEntity } from '../user/user.entity';
import { UserGrants, UserRepository } from '../user/user.repository';
import { SignOutHooks } from '../user/sign-out-hooks';
import { EventsService } from '../events/events.service';
import { StepUpService } from '../user/step-up.service';
import type { TargetUserRef } from '../settings/request-targets';
import { ListSessionsResponse, RefreshTokenResponse, SessionResponse } from './dto/session.dto';
import { currentUserAgent } from './request-context';
import { SessionRepository, SessionRow } from './session.repository';

/** What the caller of `issueFor` already read for the token: the user's grants, the extension claims. */
export interface IssueKnown {
  grants?: UserGrants;
  extraClaims?: Record<string, unknown>;
}

/** A live session named by a refresh token, with its tenant and the time its newest refresh token stops being usable (idle timeout or end). */
export interface RefreshableSession extends SessionRow {
  tenantId: string;
  usableUntil: Date;
}

/** A refresh done: the new tokens and the session they belong to. */
export interface RotatedSession extends RefreshTokenResponse {
  session: RefreshableSession;
}

/** A session just started: its id (the tokens' `sid`) and its first refresh token. */
export interface StartedSession {
  sessionId: string;
  refreshToken: string;
}

/**
 * Sessions: one per sign-in that issues a token. Refresh tokens are routed ids
 * (they name their tenant), stored as SHA-256, and rotated on every use: each use
 * marks the presented one used with one conditional UPDATE and hands out the
 * next; presenting a used one again is a replay (someone holds a copy) and
 * revokes the whole session.
 */
@Injectable()
export class SessionService {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly scopes: SectorScopes,
    private readonly users: UserRepository,
    private readonly tokens: AccessTokenService,
    private readonly cache: AuthStateCache,
    private readonly stepUp: StepUpService,
    private readonly signOut: SignOutHooks,
    private readonly events: EventsService,
    private readonly claims: TokenClaims,
  ) {}

  /**
   * Starts a session for a completed sign-in, with the sector's lifetime and idle
   * timeout; `amr` records how it authenticated the user (RFC 8176). Written through
   * `db` (the caller's transaction) when given, else the scope's database.
   */
  async start(scope: SectorScope, user: UserEntity, clientIp: string, amr: string[] = [], db: TenantDb = scope.db): Promise<StartedSession> {
    const settings = await scope.settings();
    const sessionId = randomUUID();
    const refreshToken = newRoutedId(scope.route.tenant.id);
    await this.sessions.insert(
      db,
      {
        id: sessionId,
        userId: user.id,
        sectorId: scope.route.sectorId,
        clientIp: clientIp || null,
        userAgent: currentUserAgent(),
        expiresAt: new Date(Date.now() + Number(settings.sessionLifetimeSeconds) * 1000),
        idleTimeoutSeconds: String(settings.sessionIdleTimeoutSeconds),
        amr,
      },
      hashSecretToken(refreshToken),
    );
    return { sessionId, refreshToken };
  }

  /**
   * Trades a refresh token for a new access token and the next refresh token.
   * Unknown: REFRESH_TOKEN_INVALID. Used before: REFRESH_TOKEN_REUSED, and the
   * session is revoked. A revoked or expired session: SESSION_REVOKED.
   */
  async refresh(refreshToken: string, clientIp: string): Promise<RefreshTokenResponse> {
    const { token, refreshToken: next } = await this.rotate(refreshToken, clientIp);
    return { token, refreshToken: next };
  }

  /**
   * The refresh itself (`refresh` answers part of it): also says which session it
   * renewed and until when the next refresh token is good, for a caller that keeps
   * the refresh token itself (the browser-session cookie, src/browser-session).
   */
  async rotate(refreshToken: string, clientIp: string): Promise<RotatedSession> {
    const invalid = () => DomainError.unauthenticated(Reason.REFRESH_TOKEN_INVALID, 'The refresh token is invalid.');
    const tenantId = tenantOfRoutedId(refreshToken);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) throw invalid();
    const db = await this.connections.db(tenant);
    const hash = hashSecretToken(refreshToken);
    // Extension claims are collected before the refresh token is spent: a contributor that fails (UNAVAILABLE) leaves it usable for a retry.
    const extraClaims = this.claims.active ? await this.claimsBeforeRefresh(db, hash) : undefined;
    const next = newRoutedId(tenant.id);
    const outcome = await db.transaction(async (tx) => {
      const sessionId = await this.sessions.useRefreshToken(tx, hash);
      if (!sessionId) return { replayed: await this.sessions.sessionOfUsedRefreshToken(tx, hash) };
      const session = await this.sessions.find(tx, sessionId);
      if (!session) throw invalid();
      assertLive(session);
      await this.sessions.rotate(tx, session.id, hashSecretToken(next), clientIp || null);
      return { session };
    });
    if (!outcome.session) {
      if (!outcome.replayed) throw invalid();
      await this.endSession(db, outcome.replayed, 'refresh_token_reused');
      // Whose session it was is not known here: drop what this instance cached of the tenant.
      this.cache.flush(tenant);
      throw DomainError.unauthenticated(Reason.REFRESH_TOKEN_REUSED, 'The refresh token was already used; the session has been revoked.');
    }
    const session = outcome.session;
    const user = await this.users.findById(db, session.userId);
    if (!user || user.sectorId !== session.sectorId) throw invalid();
    const scope = await this.scopes.byId(session.sectorId);
    // A refresh is not an authentication: the token keeps the time of the sign-in that started the session.
    const { token } = await this.issueFor(scope, user, session.id, Math.floor(session.createdAt.getTime() / 1000), { extraClaims });
    // The rotation noted the session as seen now: the next token is good until the idle timeout or the session's end, whichever is first.
    const idleEnd = Date.now() + session.idleTimeoutSeconds * 1000;
    return { token, refreshToken: next, session: { ...session, tenantId: tenant.id, usableUntil: new Date(Math.min(idleEnd, session.expiresAt.getTime())) } };
  }

  /**
   * The live session an unused refresh token belongs to, read without spending the
   * token; undefined when the token is unknown or used, or its session ended.
   */
  async sessionOfRefreshToken(refreshToken: string): Promise<RefreshableSession | undefined> {
    const tenantId = tenantOfRoutedId(refreshToken);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) return undefined;
    const db = await this.connections.db(tenant);
    const owner = await this.sessions.ownerOfRefreshToken(db, hashSecretToken(refreshToken));
    const session = owner ? await this.sessions.find(db, owner.sessionId) : null;
    if (!session || session.revokedAt || session.expired) return undefined;
    const idleEnd = session.lastSeenAt.getTime() + session.idleTimeoutSeconds * 1000;
    return { ...session, tenantId: tenant.id, usableUntil: new Date(Math.min(idleEnd, session.expiresAt.getTime())) };
  }

  /** Ends the session an unused refresh token belongs to, as a logout does; false when there was none live. */
  async endByRefreshToken(refreshToken: string): Promise<boolean> {
    const session = await this.sessionOfRefreshToken(refreshToken);
    const tenant = session ? await this.directory.tenantById(session.tenantId) : undefined;
    if (!session || !tenant) return false;
    const ended = await this.endSession(await this.connections.db(tenant), session.id, 'signed_out', session.userId);
    this.cache.forget(tenant, `u:${session.userId}`);
    return ended;
  }

  /** Do extension modules add claims to access tokens? (src/keys/token-claims.ts) */
  get addsExtensionClaims(): boolean {
    return this.claims.active;
  }

  /** The claims extension modules add to the user's access tokens; UNAVAILABLE when a contributor fails (docs/extending.md). */
  async extensionClaims(scope: SectorScope, user: UserEntity, grants?: UserGrants): Promise<Record<string, unknown>> {
    const { roles, permissions } = grants ?? (await this.users.grantsOf(scope.db, user.id));
    return this.claims.collect({
      tenantID: scope.route.tenant.id,
      sectorID: scope.route.sectorId,
      user: { id: user.id, username: user.username, email: user.email, isAdmin: user.isAdmin, roles, permissions },
    });
  }

  /** The extension claims for the user of an unused refresh token (undefined when it is none: the refresh fails anyway). */
  private async claimsBeforeRefresh(db: TenantDb, hash: string): Promise<Record<string, unknown> | undefined> {
    const owner = await this.sessions.ownerOfRefreshToken(db, hash);
    const user = owner ? await this.users.findById(db, owner.userId) : null;
    if (!owner || !user || user.sectorId !== owner.sectorId) return undefined;
    return this.extensionClaims(await this.scopes.byId(owner.sectorId), user);
  }

  /**
   * Issues an access token of a session; `authTime` (Unix seconds) is when the user
   * authenticated, now by default. `known`: what the caller read already (else it is
   * read here): the user's grants, the extension claims.
   */
  async issueFor(scope: SectorScope, user: UserEntity, sessionId: string, authTime = Math.floor(Date.now() / 1000), known?: IssueKnown): Promise<{ token: string }> {
    const [settings, grants] = await Promise.all([scope.settings(), known?.grants ?? this.users.grantsOf(scope.db, user.id)]);
    const claims = known?.extraClaims ?? (this.claims.active ? await this.extensionClaims(scope, user, grants) : undefined);
    return this.tokens.issue({
      tenantId: scope.route.tenant.id,
      kid: scope.route.tenant.kid,
      sectorId: scope.route.sectorId,
      userId: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      roles: grants.roles,
      permissions: grants.permissions,
      credentialVersion: user.credentialVersion,
      ttlSeconds: Number(settings.accessTokenDuration),
      sessionId,
      authTime,
      extraClaims: claims,
    });
  }

  /**
   * Step-up for the caller's own session: the current password again, then an
   * access token of the same session whose `auth_time` is now. Only the user
   * themselves with an access token of a session (an admin cannot re-authenticate
   * for someone else, and an API token has no session).
   */
  async reauthenticate(caller: Principal, target: TargetUserRef, currentPassword: string, clientIp: string): Promise<{ token: string }> {
    if (caller.kind !== 'user' || caller.userId !== target.id || !caller.sessionId) {
      throw DomainError.permissionDenied('Only the user, signed in with an access token of a session, can re-authenticate.');
    }
    await this.stepUp.verifyPassword(target, currentPassword, clientIp);
    const user = await this.users.findById(target.scope.db, target.id);
    if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
    const { token } = await this.issueFor(target.scope, user, caller.sessionId);
    return { token };
  }

  /** Ends the caller's session (the one its access token names). */
  async logout(caller: Principal): Promise<Record<string, never>> {
    if (caller.kind !== 'user') throw DomainError.permissionDenied('Only a signed-in user has a session to end.');
    if (caller.sessionId) {
      const db = await this.connections.db(caller.tenant);
      await this.endSession(db, caller.sessionId, 'signed_out', caller.userId);
      this.cache.forget(caller.tenant, `u:${caller.userId}`);
    }
    return {};
  }

  async list(db: TenantDb, userId: string, caller: Principal): Promise<ListSessionsResponse> {
    const current = caller.kind === 'user' ? caller.sessionId : undefined;
    const rows = await this.sessions.listActive(db, userId);
    return { sessions: rows.map((s) => toSessionResponse(s, current)) };
  }

  async revoke(db: TenantDb, userId: string, sessionId: string): Promise<{ id: string }> {
    if (!isUuidLike(sessionId) || !(await this.endSession(db, sessionId, 'revoked', userId))) {
      throw DomainError.notFound(Reason.SESSION_NOT_FOUND, 'No such active session of this user.');
    }
    this.cache.forget(db.tenant, `u:${userId}`);
    return { id: sessionId };
  }

  /**
   * Revokes a session (of `userId`, when given) and, in the same transaction,
   * what was born of it (the OpenID Provider sessions it signed in); notifies
   * after the commit. False when there was no such live session.
   */
  private async endSession(db: TenantDb, sessionId: string, reason: 'revoked' | 'signed_out' | 'refresh_token_reused', userId?: string): Promise<boolean> {
    const after = await db.transaction(async (tx) => {
      const revoked = await this.sessions.revoke(tx, sessionId, userId);
      if (!revoked) return undefined;
      await this.events.emit(tx, revoked.sectorId, 'session.revoked', { userID: revoked.userId, sessionID: sessionId, reason });
      return this.signOut.signedOut(tx, { kind: 'sessions', sessionIds: [sessionId] });
    });
    if (!after) return false;
    await after();
    return true;
  }
}

function assertLive(session: SessionRow): void {
  if (session.revokedAt) throw DomainError.unauthenticated(Reason.SESSION_REVOKED, 'The session was revoked.');
  if (session.expired) throw DomainError.unauthenticated(Reason.SESSION_REVOKED, 'The session has expired; sign in again.');
}

function isUuidLike(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}

function toSessionResponse(s: SessionRow, current: string | undefined): SessionResponse {
  return {
    id: s.id,
    sectorID: s.sectorId,
    clientIP: s.clientIp ?? '',
    userAgent: s.userAgent,
    createdAt: unixSeconds(s.createdAt),
    lastSeenAt: unixSeconds(s.lastSeenAt),
    expiresAt: unixSeconds(s.expiresAt),
    current: s.id === current,
  };
}
