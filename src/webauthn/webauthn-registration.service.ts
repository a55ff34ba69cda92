import { Inject, Injectable } from '@nestjs/common';
import type { Principal, UserPrincipal } from '../access/principal';
import { AuthTransactionEntity } from '../auth/engine/auth-transaction.entity';
import { AuthTransactionRepository } from '../auth/engine/auth-transaction.repository';
import { TransactionJanitor } from '../auth/engine/transaction-janitor';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SectorMessages } from '../mail/sector-messages';
import { SectorScope, SectorScopes } from '../settings/sector-scope';
import { newRoutedId } from '../tenancy/routed-id';
import { StepUpService } from '../user/step-up.service';
import { UserRepository } from '../user/user.repository';
import { AuditService } from '../audit/audit.service';
import { credentialIdOf, newChallenge, SUPPORTED_ALGORITHMS, userHandleOf, verifyAttestation } from './ceremony';
import {
  WebAuthnRegistrationBeginDto,
  WebAuthnRegistrationBeginResponse,
  WebAuthnRegistrationFinishDto,
  WebAuthnRegistrationFinishResponse,
} from './dto/webauthn.dto';
import { RelyingParties } from './relying-parties';
import { WebAuthnCredentialEntity } from './webauthn-credential.entity';
import { WebAuthnCredentialRepository } from './webauthn-credential.repository';

/** The kind of a passkey registration's transaction (sign-in steps only continue `login` transactions, and only those prove self-access). */
const WEBAUTHN_REGISTRATION = 'webauthn-registration';

/** What a registration transaction keeps between begin and finish (`data.webauthn`). */
interface PendingRegistration {
  challenge: string;
  keyName: string;
}

const DEFAULT_KEY_NAME = 'Passkey';

/**
 * Passkey registration for the signed-in user (operations 18 and 19): begin
 * issues creation options (the user's passkeys excluded, resident keys preferred,
 * ES256/RS256/EdDSA) and keeps the challenge on a registration transaction of
 * the user; finish verifies the attestation against that challenge and the
 * sector's relying party, completes the transaction with one conditional UPDATE
 * (so it works once) and stores the credential in the same database transaction,
 * which also queues the `factorAdded` notice to the user's email.
 *
 * Step-up: begin needs a sign-in of the last five minutes or the current
 * password (REAUTHENTICATION_REQUIRED otherwise). Finish needs no more: it only
 * completes a registration transaction that such a begin created for this user.
 */
@Injectable()
export class WebAuthnRegistrationService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scopes: SectorScopes,
    private readonly users: UserRepository,
    private readonly transactions: AuthTransactionRepository,
    private readonly janitor: TransactionJanitor,
    private readonly relyingParties: RelyingParties,
    private readonly credentials: WebAuthnCredentialRepository,
    private readonly audit: AuditService,
    private readonly stepUp: StepUpService,
    private readonly messages: SectorMessages,
  ) {}

  async begin(principal: Principal, dto: WebAuthnRegistrationBeginDto, clientIp: string): Promise<WebAuthnRegistrationBeginResponse> {
    const caller = signedInUser(principal);
    if (dto.sectorID !== undefined && dto.sectorID !== caller.sectorId) {
      throw DomainError.invalidArgument('sectorID: is not your sector', [{ field: 'sectorID', description: 'must be your own sector' }], Reason.SECTOR_MISMATCH);
    }
    const scope = await this.scopeOf(caller);
    await this.stepUp.require(caller, { id: caller.userId, isAdmin: caller.isAdmin, scope }, { currentPassword: dto.currentPassword }, clientIp, 'add or remove a sign-in method');
    const user = await this.users.findById(scope.db, caller.userId);
    if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
    const rp = await this.relyingParties.usable(scope);
    const existing = await this.credentials.listForUser(scope.db, user.id);
    const pending: PendingRegistration = { challenge: newChallenge(), keyName: dto.keyName?.trim() || DEFAULT_KEY_NAME };
    let transactionId: string;
    if (dto.transactionID) {
      const tx = await this.pendingRegistration(scope, dto.transactionID, user.id);
      if (!(await this.transactions.setPending(scope.db, tx.id, 'webauthn', pending))) {
        throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The registration was completed or expired meanwhile.');
      }
      transactionId = tx.id;
    } else {
      transactionId = await this.startRegistration(scope, user.id, pending);
    }
    return {
      options: {
        challenge: pending.challenge,
        rp: { name: rp.name, icon: '', id: rp.id },
        user: { name: user.username, icon: '', displayName: user.name || user.username, id: userHandleOf(user.id) },
        pubKeyCredParams: SUPPORTED_ALGORITHMS.map((alg) => ({ type: 'public-key', alg })),
        authenticatorSelection: { authenticatorAttachment: '', requireResidentKey: false, residentKey: 'preferred', userVerification: 'preferred' },
        timeout: Math.min(this.config.transactionTtlSeconds, 300) * 1000,
        excludeCredentials: existing.map((c) => ({ type: 'public-key', id: c.credentialId, transports: c.transports })),
        extensions: {},
        attestation: 'none',
      },
      transactionID: transactionId,
      sectorID: caller.sectorId,
    };
  }

  async finish(principal: Principal, dto: WebAuthnRegistrationFinishDto): Promise<WebAuthnRegistrationFinishResponse> {
    const caller = signedInUser(principal);
    const rawId = credentialIdOf(dto);
    const scope = await this.scopeOf(caller);
    const tx = await this.pendingRegistration(scope, dto.transactionID, caller.userId);
    if (dto.sectorID !== undefined && dto.sectorID !== tx.sectorId) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_NOT_FOUND, 'No such registration in this sector.');
    }
    const rp = await this.relyingParties.usable(scope);
    const pending = tx.data.webauthn as PendingRegistration | undefined;
    if (!pending?.challenge) throw new DomainError(ErrorCode.INVALID_ARGUMENT, Reason.WEBAUTHN_CHALLENGE_MISMATCH, 'No challenge is pending on this registration.');
    const outcome = await verifyAttestation(
      {
        rawId,
        id: dto.id,
        type: dto.type,
        clientDataJSON: dto.response.clientDataJSON,
        attestationObject: dto.response.attestationObject,
        transports: dto.response.transports,
        clientExtensionResults: dto.clientExtensionResults,
      },
      { challenge: pending.challenge, rp, requireUserVerification: false },
    );
    if (!outcome.ok) {
      const { reason, message, metadata } = outcome.refusal;
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, reason, message, { metadata });
    }
    const verified = outcome.value;
    const row = Object.assign(new WebAuthnCredentialEntity(), {
      credentialId: verified.credentialId,
      userId: caller.userId,
      sectorId: tx.sectorId,
      publicKey: verified.publicKey,
      signCount: String(verified.counter),
      transports: verified.transports,
      aaguid: verified.aaguid,
      attestationFormat: verified.format,
      rpId: rp.id,
      backupEligible: verified.backupEligible,
      backedUp: verified.backedUp,
      cloneWarning: false,
      keyName: pending.keyName || DEFAULT_KEY_NAME,
      createdAt: new Date(),
      lastUsedAt: null,
    });
    const user = await this.users.findById(scope.db, caller.userId);
    if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
    await this.messages.inTransaction(scope, async (t) => {
      const completed = await this.transactions.advance(t, tx.id, 'PENDING', {
        status: 'SUCCESS',
        complete: true,
        consume: { key: 'webauthn', path: 'challenge', equals: pending.challenge },
      });
      if (!completed) throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The registration was completed or expired meanwhile.');
      await this.credentials.insert(t, row);
      await this.audit.record(t, { type: 'mfa.enrolled', sectorId: scope.route.sectorId, target: { kind: 'user', id: caller.userId }, details: { factor: 'webauthn', credentialID: row.credentialId } });
      if (user.email) await this.messages.enqueue(t, scope, 'factorAdded', { email: user.email, locale: user.locale }, { username: user.username, factor: 'passkey' });
    });
    return { sub: caller.userId, type: 'public-key' };
  }

  private scopeOf(caller: UserPrincipal): Promise<SectorScope> {
    return this.scopes.of({ tenant: caller.tenant, sectorId: caller.sectorId, isDefault: caller.isDefaultSector });
  }

  private async startRegistration(scope: SectorScope, userId: string, pending: PendingRegistration): Promise<string> {
    const tx = Object.assign(new AuthTransactionEntity(), {
      id: newRoutedId(scope.route.tenant.id),
      kind: WEBAUTHN_REGISTRATION,
      sectorId: scope.route.sectorId,
      userId,
      status: 'PENDING',
      factors: [],
      pendingChallenge: 'WEBAUTHN',
      attemptsLeft: this.config.otpMaxAttempts,
      data: { webauthn: pending },
      clientIp: null,
      expiresAt: new Date(Date.now() + this.config.transactionTtlSeconds * 1000),
      completedAt: null,
    });
    await this.transactions.insert(scope.db, tx);
    this.janitor.noteActivity(scope.route.tenant);
    return tx.id;
  }

  /** A pending, unexpired registration of this user in this sector (else the transaction errors sign-in steps answer). */
  private async pendingRegistration(scope: SectorScope, id: string, userId: string): Promise<AuthTransactionEntity> {
    const tx = await this.transactions.find(scope.db, id);
    if (!tx || tx.kind !== WEBAUTHN_REGISTRATION || tx.sectorId !== scope.route.sectorId) {
      throw DomainError.failedPrecondition(Reason.TRANSACTION_NOT_FOUND, 'No such passkey registration in this sector.');
    }
    if (tx.userId !== userId) throw DomainError.failedPrecondition(Reason.TRANSACTION_MISMATCH, 'The registration belongs to another user.');
    if (tx.status === 'FAILED') throw DomainError.failedPrecondition(Reason.TRANSACTION_FAILED, 'The registration failed; begin again.');
    if (tx.status !== 'PENDING') throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The registration is already completed.');
    if (tx.expiresAt.getTime() <= Date.now()) throw DomainError.failedPrecondition(Reason.TRANSACTION_EXPIRED, 'The registration has expired; begin again.');
    return tx;
  }
}

/** Passkeys are registered by a signed-in user for themselves: never by an API token. */
function signedInUser(principal: Principal): UserPrincipal {
  if (principal.kind !== 'user') throw DomainError.permissionDenied('Only a signed-in user registers passkeys, for themselves (not an API token).');
  return principal;
}
