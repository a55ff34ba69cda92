import { ConsoleLogger, LogLevel } from '@nestjs/common';
import { requestContext } from '../http/request-context';

/**
 * Nest's console logger, with LOG_FORMAT=json: one JSON object per line (level,
 * time, context, message), plus the request id, tenant and sector of the request
 * the line was written for, when there is one.
 */
export class AppLogger extends ConsoleLogger {
  constructor(logLevels: LogLevel[], json: boolean) {
    super({ logLevels, json, colors: !json });
  }

  protected override getJsonLogObject(
    message: unknown,
    options: { context: string; logLevel: LogLevel; writeStreamType?: 'stdout' | 'stderr'; errorStack?: unknown },
  ) {
    const base = super.getJsonLogObject(message, options);
    const store = requestContext.getStore();
    return {
      time: new Date(base.timestamp).toISOString(),
      ...base,
      ...(store ? { requestId: store.requestId, tenantId: store.tenantId, sectorId: store.sectorId } : {}),
    };
  }
}
