/** `waitForAuthorization()` gave up: no credential was provided for the task within its `timeoutMs`. */
export class AuthorizationTimeoutError extends Error {
  override readonly name = 'AuthorizationTimeoutError';
}

/** A skill run called `waitForAuthorization()` while an earlier wait of the same task was still pending. */
export class AuthorizationAlreadyAwaitedError extends Error {
  override readonly name = 'AuthorizationAlreadyAwaitedError';
}
