/** Every bootstrap and answer message of the push receiver in one place, so tests import them instead of copying. */
export const PushReceiverMessages = {
  noVerification: () =>
    'A2aPushReceiverModule needs tokens, verify, or both: a webhook that checks no sender accepts task events from anyone.',
  invalidOption: (name: string, value: unknown, expected: string) =>
    `A2aPushReceiverModule option ${name} is ${describe(value)}; it must be ${expected}.`,
  unsupportedHttpAdapter: (type: string) =>
    `A2aPushReceiverModule supports the express and fastify HTTP adapters; this app uses "${type}".`,
  unauthenticated: () => 'The push notification does not come from a verified sender',
  unsupportedMediaType: (given: string | undefined) =>
    `Content-Type ${given ?? '(none)'} is not accepted: send application/a2a+json or application/json`,
  unsupportedEncoding: (given: string) => `Content-Encoding ${given} is not accepted: send the body uncompressed`,
  tooLarge: (maxBytes: number) => `The body is larger than ${maxBytes} bytes`,
  notJson: () => 'The body is not UTF-8 JSON',
  notStreamResponse: (problem: string) => `The body is not an A2A StreamResponse: ${problem}`,
  verifyFailed: () => 'The push notification could not be verified',
  taskTokensFailed: (error: string) => `The tokens function of A2aPushReceiverModule failed: ${error}`,
} as const;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return typeof value === 'function' ? 'a function' : String(value);
}
