/** The options of `A2aPushReceiverModule` cannot work as written: the app does not start. */
export class InvalidPushReceiverOptionsError extends Error {
  override readonly name = 'InvalidPushReceiverOptionsError';
}
