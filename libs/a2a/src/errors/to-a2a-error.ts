import { HttpException, Logger } from '@nestjs/common';
import { A2aError } from './a2a.error.js';
import type { A2aErrorKind } from './a2a-error-codes.js';

const logger = new Logger('A2aErrors');

/** HTTP statuses a Nest guard, pipe or body parser may throw, as the protocol error each binding knows how to send. */
const KIND_BY_HTTP_STATUS: Readonly<Record<number, A2aErrorKind>> = {
  400: 'InvalidRequest',
  401: 'Unauthenticated',
  403: 'PermissionDenied',
  404: 'MethodNotFound',
  405: 'MethodNotAllowed',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  503: 'Unavailable',
};

/**
 * The protocol error kind `toA2aError` would answer `error` with, without logging it or building the error: what
 * tracing records as `a2a.error.kind`.
 */
export function a2aErrorKindOf(error: unknown): A2aErrorKind {
  if (error instanceof A2aError) return error.kind;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    return KIND_BY_HTTP_STATUS[status] ?? (status < 500 ? 'InvalidRequest' : 'Internal');
  }
  return 'Internal';
}

/**
 * Any thrown value as an {@link A2aError}, so every binding answers in its own shape: HttpExceptions (from the user's
 * guards, Nest, or the body parser) keep their meaning; anything else is an internal error whose details stay in the
 * log, never on the wire.
 */
export function toA2aError(error: unknown): A2aError {
  if (error instanceof A2aError) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const kind = KIND_BY_HTTP_STATUS[status];
    if (kind) return new A2aError(kind, status >= 500 ? undefined : error.message);
    if (status < 500) return new A2aError('InvalidRequest', error.message);
  }
  logger.error('Unexpected error while serving an A2A call', error instanceof Error ? error.stack : String(error));
  return new A2aError('Internal');
}
