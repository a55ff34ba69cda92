import { Injectable } from '@nestjs/common';
import type { AuthResultResponse } from '../auth/dto/auth.dto';
import { AuthTransactionRepository } from '../auth/engine/auth-transaction.repository';
import { StepState } from '../auth/engine/factor-strategy';
import { SignInEngine } from '../auth/engine/sign-in-engine';
import { WebAuthnStrategy } from '../auth/strategies/webauthn.strategy';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { credentialIdOf } from './ceremony';
import { WebAuthnLoginBeginDto, WebAuthnLoginBeginResponse, WebAuthnLoginFinishDto } from './dto/webauthn.dto';
import { RelyingParties } from './relying-parties';

/** Passkey sign-in: operations 14 (begin) and 15 (finish), on the sign-in engine with the passkey strategy. */
@Injectable()
export class WebAuthnLoginService {
  constructor(
    private readonly engine: SignInEngine,
    private readonly strategy: WebAuthnStrategy,
    private readonly transactions: AuthTransactionRepository,
    private readonly relyingParties: RelyingParties,
  ) {}

  /**
   * Operation 14: a new challenge with the credentials the flow may use. Without
   * a transaction it starts a flow (counted per client address like every flow
   * without a factor): for a login, with that login's passkeys (stand-ins when
   * it has none, so the answer does not tell whether the account exists);
   * without a login, a usernameless flow. With a transaction (e.g. after the
   * password) it issues the challenge for that transaction's user.
   */
  async begin(dto: WebAuthnLoginBeginDto, clientIp: string): Promise<WebAuthnLoginBeginResponse> {
    const username = dto.username?.trim() ? dto.username : undefined;
    let state: StepState;
    if (username === undefined && !dto.transactionID) {
      state = { scope: await this.engine.scopeForSignIn(dto.sectorID), tx: undefined, user: null, login: '', clientIp };
    } else {
      state = await this.engine.load({ sectorID: dto.sectorID, transactionID: dto.transactionID, username }, clientIp);
    }
    const rp = await this.relyingParties.usable(state.scope);
    const { pending, publicKey } = await this.strategy.requestOptions(state, rp, username);
    if (state.tx) {
      if (!(await this.transactions.setPendingWebAuthn(state.scope.db, state.tx.id, pending as unknown as Record<string, unknown>))) {
        throw DomainError.aborted(Reason.TRANSACTION_COMPLETED, 'The authentication transaction was completed or expired meanwhile.');
      }
    } else {
      await this.engine.startAnonymousFlow(state, { webauthn: pending });
    }
    return { credentialAssertion: { publicKey }, transactionID: state.tx!.id };
  }

  /**
   * Operation 15: verifies the assertion for the transaction's pending challenge
   * and continues the transaction. `rawID` or `rawId` (or `id`), standard or
   * URL-safe base64.
   */
  async finish(dto: WebAuthnLoginFinishDto, clientIp: string): Promise<AuthResultResponse> {
    const rawId = credentialIdOf(dto);
    const username = dto.username?.trim() ? dto.username : undefined;
    const state = await this.engine.load({ sectorID: dto.sectorID, transactionID: dto.transactionID, username }, clientIp);
    return this.engine.verify(this.strategy, state, {
      rawId,
      id: dto.id,
      type: dto.type,
      clientDataJSON: dto.response.clientDataJSON,
      authenticatorData: dto.response.authenticatorData,
      signature: dto.response.signature,
      userHandle: dto.response.userHandle || undefined,
      clientExtensionResults: dto.clientExtensionResults,
      login: username,
    });
  }
}
