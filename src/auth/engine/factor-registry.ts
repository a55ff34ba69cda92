import { Injectable } from '@nestjs/common';
import type { Assurance, Factor } from './auth-policy';
import type { AnyFactorStrategy } from './factor-strategy';

/**
 * The sign-in factors the engine knows: each feature module registers its
 * strategies here (in `onModuleInit`), so the engine and the policy never name a
 * factor, and a factor lives in its feature's folder.
 */
@Injectable()
export class FactorRegistry {
  private readonly byId = new Map<string, AnyFactorStrategy>();

  register(strategy: AnyFactorStrategy): void {
    const known = this.byId.get(strategy.id);
    if (known && known !== strategy) throw new Error(`Two factor strategies are registered as '${strategy.id}'.`);
    const same = this.all().find((s) => s.assurance.factor === strategy.assurance.factor);
    if (same && !sameAssurance(same.assurance, strategy.assurance)) {
      throw new Error(`Factor strategies '${same.id}' and '${strategy.id}' record ${strategy.assurance.factor} with different assurance.`);
    }
    this.byId.set(strategy.id, strategy);
  }

  /** The strategy registered as `id`. */
  get(id: string): AnyFactorStrategy {
    const strategy = this.byId.get(id);
    if (!strategy) throw new Error(`No factor strategy is registered as '${id}'.`);
    return strategy;
  }

  /** Every registered strategy, in registration order. */
  all(): AnyFactorStrategy[] {
    return [...this.byId.values()];
  }

  /** What a recorded factor is worth, as the strategies that record it declare. */
  assuranceOf(factor: Factor): Assurance {
    const strategy = this.all().find((s) => s.assurance.factor === factor);
    if (!strategy) throw new Error(`No factor strategy records ${factor}.`);
    return strategy.assurance;
  }
}

function sameAssurance(a: Assurance, b: Assurance): boolean {
  return a.kind === b.kind && a.secondFactor === b.secondFactor && a.satisfiesMfaAlone === b.satisfiesMfaAlone && a.challengeType === b.challengeType;
}
