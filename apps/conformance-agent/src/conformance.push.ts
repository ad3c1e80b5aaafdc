import { pushAllowList, type A2aPushOptions } from '../../../libs/a2a/src/index.js';
import type { ConformanceOptions } from './conformance.options.js';

/**
 * Option `push` of the conformance agent: always on, with `A2A_PUSH_ALLOW`'s hosts and ranges exempted from the SSRF
 * guard on any port (test receivers listen on ephemeral ports), unless the caller sets `allowedPorts`.
 */
export function conformancePushOptions(push: ConformanceOptions['push'] = {}): A2aPushOptions | undefined {
  if (push === false) return undefined;
  const { allow, ...rest } = push;
  return { allowedPorts: 'any', ...rest, ...pushAllowList(allow) };
}
