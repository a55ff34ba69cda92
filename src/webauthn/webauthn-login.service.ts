import { Injectable } from '@nestjs/common';
import type { AuthResultResponse } from '../auth/engine/auth.dto';
import { StepState } from '../auth/engine/factor-strategy';
import { SignInEngine } from '../auth/engine/sign-in-engine';
import { credentialIdOf } from './ceremony';
import { WebAuthnLoginBeginDto, WebAuthnLoginBeginResponse, WebAuthnLoginFinishDto } from './dto/webauthn.dto';
import { WebAuthnStrategy } from './webauthn.strategy';

/** Passkey sign-in: operations 14 (begin) and 15 (finish), on the sign-in engine with the passkey strategy. */
@Injectable()
export class WebAuthnLoginService {
  constructor(
    private readonly engine: SignInEngine,
    private readonly strategy: WebAuthnStrategy,
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
    // The engine keeps the challenge on the transaction, or on a new flow when the step has none.
    const publicKey = await this.engine.begin(this.strategy, state, username);
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
