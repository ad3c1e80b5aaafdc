import type { ServerResponse } from 'node:http';
import { toA2aError } from '../../errors/to-a2a-error.js';
import type { HttpRequest } from '../http/http-request.js';
import { sendJson, setErrorHeaders } from '../http/json-response.js';
import { httpStatusOf, jsonRpcError, requestIdOf } from './jsonrpc.envelope.js';

/**
 * Answers a failed JSON-RPC call with a JSON-RPC error envelope. Errors after the first SSE event travel as the
 * stream's last frame (sse.writer.ts), so once headers are out there is nothing left to send but the end.
 */
export function answerJsonRpcFailure(req: HttpRequest, res: ServerResponse, exception: unknown): void {
  const error = toA2aError(exception);
  if (res.headersSent) {
    res.end();
    return;
  }
  // The endpoint leaves the parsed body on `req.body`, so the id is echoed whichever parser read it.
  const id = requestIdOf(req.body);
  setErrorHeaders(res, error.headers);
  sendJson(res, httpStatusOf(error), 'application/json', JSON.stringify(jsonRpcError(id, error)));
}
