// Unhandled promise rejections, judged: a database connection lost outside any request (graphile-worker's
// background batches, a pool reconnecting) is an outage the process rides out (requests answer 503 meanwhile and
// the worker restarts itself); anything else left unhandled is a bug, and the process shuts down gracefully.
import { mapDatabaseError } from './database-errors.ts';

interface Log {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export function judgeUnhandledRejections(log: () => Log, shutDown: () => void): void {
  process.on('unhandledRejection', (reason) => {
    if (mapDatabaseError((reason ?? {}) as { code?: string })?.code === 'DATABASE_UNAVAILABLE') {
      log().warn({ err: reason }, 'a database connection failed in the background; carrying on');
      return;
    }
    log().error({ err: reason }, 'shutting down after an unhandled rejection');
    shutDown();
  });
}
