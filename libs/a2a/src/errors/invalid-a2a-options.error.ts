/**
 * An option of A2aModule (or of a security scheme factory) cannot work as written: the app does not start. The message
 * names the option's path and what it must be.
 */
export class InvalidA2aOptionsError extends Error {
  override readonly name: string = 'InvalidA2aOptionsError';
}
