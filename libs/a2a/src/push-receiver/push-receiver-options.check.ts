import { DEFAULT_DEDUP_WINDOW, DEFAULT_PUSH_MAX_BODY_BYTES, DEFAULT_PUSH_PATH } from './push-receiver.constants.js';
import { PushReceiverMessages } from './push-receiver.messages.js';
import type { A2aPushReceiverOptions, A2aPushTaskTokens, A2aPushVerifier } from './push-receiver.options.js';
import { InvalidPushReceiverOptionsError } from './push-receiver-options.error.js';

/** The options with defaults applied, as the receiver uses them. */
export interface ResolvedPushReceiverOptions {
  readonly path: string;
  readonly tokens: readonly string[] | A2aPushTaskTokens | undefined;
  readonly verify: A2aPushVerifier | undefined;
  readonly maxBodyBytes: number;
  readonly dedupWindow: number;
}

// Literal segments of unreserved characters only: the path is registered on Express and Fastify, whose parameter,
// wildcard and group syntaxes differ and reserve most punctuation.
const LITERAL_PATH = /^\/(?:[A-Za-z0-9._~%-]+\/?)*$/;

/** Checks the options at bootstrap, so a misconfigured webhook stops the app instead of refusing every sender. */
export function resolvePushReceiverOptions(options: A2aPushReceiverOptions): ResolvedPushReceiverOptions {
  const fail = (name: string, value: unknown, expected: string): never => {
    throw new InvalidPushReceiverOptionsError(PushReceiverMessages.invalidOption(name, value, expected));
  };
  const { tokens, verify } = options;
  if (tokens === undefined && verify === undefined)
    throw new InvalidPushReceiverOptionsError(PushReceiverMessages.noVerification());
  if (tokens !== undefined && typeof tokens !== 'function') {
    if (!Array.isArray(tokens) || tokens.length === 0)
      fail('tokens', tokens, 'a non-empty array of non-empty strings, or a function of the task id');
    tokens.forEach((token, i) => {
      if (typeof token !== 'string' || token.length === 0) fail(`tokens[${i}]`, token, 'a non-empty string');
    });
  }
  if (verify !== undefined && typeof verify !== 'function') fail('verify', verify, 'a function');
  const path = options.path ?? DEFAULT_PUSH_PATH;
  if (typeof path !== 'string' || !LITERAL_PATH.test(path))
    fail('path', path, "a path starting with '/', of literal segments (no parameters or wildcards)");
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_PUSH_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) fail('maxBodyBytes', maxBodyBytes, 'a positive integer');
  const dedupWindow = options.dedupWindow ?? DEFAULT_DEDUP_WINDOW;
  if (!Number.isSafeInteger(dedupWindow) || dedupWindow < 0)
    fail('dedupWindow', dedupWindow, 'an integer of 0 or more');
  return {
    path: path.length > 1 ? path.replace(/\/$/, '') : path,
    tokens: typeof tokens === 'function' ? tokens : tokens && [...tokens],
    verify,
    maxBodyBytes,
    dedupWindow,
  };
}
