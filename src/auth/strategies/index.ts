import { Provider, Type } from '@nestjs/common';
import { FACTOR_STRATEGIES, FactorStrategy } from '../engine/factor-strategy';
import { EmailEnrollmentStrategy } from './email-enrollment.strategy';
import { MagicLinkStrategy } from './magic-link.strategy';
import { PasswordStrategy } from './password.strategy';
import { SentCodeStrategy } from './sent-code.strategy';
import { SocialStrategy } from './social.strategy';
import { TotpStrategy } from './totp.strategy';
import { WebAuthnStrategy } from './webauthn.strategy';

/** The sign-in factors the engine knows. Adding a factor: write its strategy and list it here. */
const FACTOR_STRATEGY_CLASSES: ReadonlyArray<Type<FactorStrategy<never>>> = [PasswordStrategy, SentCodeStrategy, TotpStrategy, EmailEnrollmentStrategy, WebAuthnStrategy, SocialStrategy, MagicLinkStrategy];

/** The strategies themselves, and the list the engine asks (e.g. which second factors a user has enrolled). */
export const FACTOR_STRATEGY_PROVIDERS: Provider[] = [
  ...FACTOR_STRATEGY_CLASSES,
  { provide: FACTOR_STRATEGIES, inject: [...FACTOR_STRATEGY_CLASSES], useFactory: (...strategies: FactorStrategy<unknown>[]) => strategies },
];
