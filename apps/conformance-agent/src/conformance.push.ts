import { pushAllowList, type A2aPushOptions } from '../../../libs/a2a/src/index.js';
import type { ConformanceOptions } from './conformance.options.js';

/** Option `push` of the conformance agent: always on, with `A2A_PUSH_ALLOW`'s hosts and ranges exempted from the SSRF guard. */
export function conformancePushOptions({ allow, ...rest }: NonNullable<ConformanceOptions['push']> = {}): A2aPushOptions {
  return { ...rest, ...pushAllowList(allow) };
}
