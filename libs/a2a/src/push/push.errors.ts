import { InvalidA2aOptionsError } from '../errors/invalid-a2a-options.error.js';

/** Option `push` (delivery or secrets) cannot work as written: the app does not start. */
export class InvalidPushOptionsError extends InvalidA2aOptionsError {
  override readonly name: string = 'InvalidPushOptionsError';
}

/** A stored push secret cannot be read back: malformed, encrypted with a key no longer held, or altered. */
export class PushSecretDecryptionError extends Error {
  override readonly name = 'PushSecretDecryptionError';
}

/** A webhook host resolved to, or connected to, an address the push policy refuses: nothing was sent to it. */
export class WebhookAddressRefusedError extends Error {
  override readonly name = 'WebhookAddressRefusedError';
}
