/** Every bootstrap and answer message of the push receiver in one place, so tests import them instead of copying. */
export const PushReceiverMessages = {
  /** Bootstrap: the receiver is given neither `tokens` nor `verify`. */
  noVerification: () =>
    'A2aPushReceiverModule needs tokens, verify, or both: a webhook that checks no sender accepts task events from anyone.',
  /** Bootstrap: a receiver option has a value it cannot work with. */
  invalidOption: (name: string, value: unknown, expected: string) =>
    `A2aPushReceiverModule option ${name} is ${describe(value)}; it must be ${expected}.`,
  /** Bootstrap: the app's HTTP adapter is neither Express nor Fastify. */
  unsupportedHttpAdapter: (type: string) =>
    `A2aPushReceiverModule supports the express and fastify HTTP adapters; this app uses "${type}".`,
  /** 401: the sender is not verified (a missing or wrong token, or `verify` said no). */
  unauthenticated: () => 'The push notification does not come from a verified sender',
  /** 415: the Content-Type is not JSON. */
  unsupportedMediaType: (given: string | undefined) =>
    `Content-Type ${given ?? '(none)'} is not accepted: send application/a2a+json or application/json`,
  /** 415: the body is compressed. */
  unsupportedEncoding: (given: string) => `Content-Encoding ${given} is not accepted: send the body uncompressed`,
  /** 413: the body is over `maxBodyBytes`. */
  tooLarge: (maxBytes: number) => `The body is larger than ${maxBytes} bytes`,
  /** 400: the body is not UTF-8 JSON. */
  notJson: () => 'The body is not UTF-8 JSON',
  /** 400: the body is JSON but not a StreamResponse. */
  notStreamResponse: (problem: string) => `The body is not an A2A StreamResponse: ${problem}`,
  /** 500: the app's `verify` or per-task `tokens` function threw. */
  verifyFailed: () => 'The push notification could not be verified',
  /** Logged, with the 500 of `verifyFailed`, when the per-task `tokens` function throws. */
  taskTokensFailed: (error: string) => `The tokens function of A2aPushReceiverModule failed: ${error}`,
} as const;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return typeof value === 'function' ? 'a function' : String(value);
}
