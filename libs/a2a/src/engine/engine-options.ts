import type { A2aModuleOptions } from '../a2a-module.options.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../json/json-depth.js';

/** `limits.maxJsonDepth` (checked at bootstrap with the other options: at most what the gRPC binding carries). */
export function maxJsonDepthOf(options: A2aModuleOptions): number {
  return options.limits?.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
}
