// Errors a task executor throws to tell the worker how a failure should be treated.

/**
 * A failure that another attempt cannot fix (a 404, a refused address, an unsupported document): the job is marked
 * failed at once instead of being retried with backoff. Any other error is retried until max attempts.
 */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}
