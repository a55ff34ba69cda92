import { Injectable, Logger } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';

/**
 * What ended: some of the service's sessions, or every session of a user but
 * one (a password change keeps the caller's own), or the user themselves.
 */
export type SignOut =
  | { kind: 'sessions'; sessionIds: string[] }
  | { kind: 'user'; userId: string; exceptSessionId: string | null; userDeleted: boolean };

/** What to do once the ending committed (notifying others); its errors are its own. */
export type AfterSignOut = () => Promise<void>;

/** A module that keeps state born of sessions (the OpenID Provider's sessions and tokens) and ends it with them. */
export interface SignOutHook {
  /** Runs in the transaction that ends the sessions; may answer work for after the commit. */
  signedOut(tx: TenantDb, what: SignOut): Promise<AfterSignOut | undefined>;
}

/**
 * The seam through which modules built on top of users and sessions hear that
 * sessions ended, inside the transaction that ended them (so what they keep ends
 * in the same commit). Modules register at start-up; user and session code calls
 * `signedOut` wherever sessions end, and runs the answer after committing.
 */
@Injectable()
export class SignOutHooks {
  private readonly logger = new Logger('SignOut');
  private readonly hooks: SignOutHook[] = [];

  register(hook: SignOutHook): void {
    this.hooks.push(hook);
  }

  async signedOut(tx: TenantDb, what: SignOut): Promise<AfterSignOut> {
    const after: AfterSignOut[] = [];
    for (const hook of this.hooks) {
      const work = await hook.signedOut(tx, what);
      if (work) after.push(work);
    }
    return async () => {
      await Promise.all(after.map((work) => work().catch((err: unknown) => this.logger.warn(`after sign-out: ${err instanceof Error ? err.message : String(err)}`))));
    };
  }
}
