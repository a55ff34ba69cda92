import { Logger } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';
import { Reason } from '../errors/error-codes';

/** The user a hook of an extension module is told about (never a secret). */
export interface HookUser {
  id: string;
  username: string;
  /** '' when the user has none. */
  email: string;
  isAdmin: boolean;
  /** The user's roles in the sector, and the union of their permissions. */
  roles: readonly string[];
  permissions: readonly string[];
}

/** Why an extension's hook did not answer in time. */
class HookTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms (EXTENSION_HOOK_TIMEOUT_MS)`);
  }
}

/**
 * The refusal of a step whose extension hook failed (threw, rejected, answered
 * late or answered something it may not), logged with the hook's name: what the
 * hook guards is refused, never allowed by accident. The caller sees
 * UNAVAILABLE / EXTENSION_HOOK_FAILED and nothing of the extension
 * (docs/adr/0047-extension-modules.md).
 */
export function extensionHookFailed(logger: Logger, name: string, problem: unknown): DomainError {
  const detail = problem instanceof Error ? problem.message : String(problem);
  logger.error(`Extension hook "${name}" failed: ${detail}`, problem instanceof Error && !(problem instanceof HookTimeout) ? problem.stack : undefined);
  return DomainError.unavailable(Reason.EXTENSION_HOOK_FAILED, 'A check this service runs on the request is unavailable; try again later.');
}

/**
 * Calls an extension module's hook with `arg`, bounded by `timeoutMs`. A hook that
 * throws, rejects or takes longer fails safe: see `extensionHookFailed`. (A hook
 * that answers late keeps running; its answer is ignored.)
 */
export async function callExtensionHook<A, R>(logger: Logger, name: string, hook: (arg: A) => R | Promise<R>, arg: A, timeoutMs: number): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = hook(arg);
    if (!isThenable(answer)) return answer;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HookTimeout(timeoutMs)), timeoutMs);
    });
    return await Promise.race([Promise.resolve(answer), late]);
  } catch (err) {
    throw extensionHookFailed(logger, name, err);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function isThenable<R>(value: R | Promise<R>): value is Promise<R> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
