import { A2aError } from '../errors/a2a.error.js';

/**
 * Events one stream may hold while its client does not read (the transport's buffer is full), on SSE and gRPC alike:
 * beyond it, that stream alone is closed with an error, and its client resubscribes (the task goes on), rather than
 * the server holding a slow reader's events without bound.
 */
export const MAX_UNSENT_EVENTS = 1000;

/** Most events gathered into one write. */
export const WRITE_BATCH_EVENTS = 256;

/** The error that closes a stream whose client did not read it. */
export function slowReaderError(): A2aError {
  return new A2aError('Unavailable', 'The stream was closed because its client did not read it; subscribe again to continue');
}
