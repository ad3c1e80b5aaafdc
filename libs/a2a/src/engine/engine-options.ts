import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aMessages } from '../a2a.messages.js';
import { DEFAULT_MAX_JSON_DEPTH, MAX_JSON_DEPTH_LIMIT } from '../protocol/json-depth.js';

/** A duration option in ms, checked at bootstrap: zero, negative or not a number would reap or renew nonstop. */
export function positiveMs(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(A2aMessages.invalidOption(name, value, 'a whole number of ms, 1 or more'));
  return value;
}

/** `limits.maxJsonDepth`, checked at bootstrap: a value the gRPC binding could not carry would break equivalence. */
export function maxJsonDepthOf(options: A2aModuleOptions): number {
  const depth = options.limits?.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_JSON_DEPTH_LIMIT) {
    throw new Error(A2aMessages.invalidLimit('maxJsonDepth', depth, `an integer from 1 to ${MAX_JSON_DEPTH_LIMIT}`));
  }
  return depth;
}
