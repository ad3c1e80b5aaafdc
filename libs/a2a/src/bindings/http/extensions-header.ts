import type { ServerResponse } from 'node:http';
import { A2A_EXTENSIONS_HEADER } from '../../a2a.constants.js';

/**
 * spec §4.6: the headers of an answer that echo the extensions its call activated (`A2A-Extensions: uri1,uri2`); none
 * when it activated none. Only answers that carry the operation's result echo them, error answers do not.
 */
export function extensionsHeaders(activated: readonly string[]): Record<string, string> | undefined {
  return activated.length === 0 ? undefined : { [A2A_EXTENSIONS_HEADER]: activated.join(',') };
}

/** Sets the echo of {@link extensionsHeaders} on a whole (non-streamed) answer, before it is written. */
export function echoExtensions(res: ServerResponse, activated: readonly string[]): void {
  if (activated.length > 0) res.setHeader(A2A_EXTENSIONS_HEADER, activated.join(','));
}
