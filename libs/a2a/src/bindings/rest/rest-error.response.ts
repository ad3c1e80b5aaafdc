import type { ServerResponse } from 'node:http';
import { A2A_JSON_MEDIA_TYPE } from '../../a2a.constants.js';
import type { A2aError, ErrorDetail } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import { sendJson, setErrorHeaders } from '../http/json-response.js';

/** The HTTP+JSON error body: `google.rpc.Status` in JSON (spec §11.6). */
export interface RestErrorBody {
  error: { code: number; status: string; message: string; details: ErrorDetail[] };
}

export function restErrorBody(error: A2aError): RestErrorBody {
  const { http, grpcStatus } = error.code;
  return { error: { code: http, status: grpcStatus, message: error.message, details: error.details() } };
}

/** Answers any thrown value as an HTTP+JSON error: the table's status, a google.rpc.Status body, never a stack. */
export function sendRestError(res: ServerResponse, exception: unknown): void {
  const error = toA2aError(exception);
  if (res.headersSent) {
    res.end();
    return;
  }
  setErrorHeaders(res, error.headers);
  sendJson(res, error.code.http, A2A_JSON_MEDIA_TYPE, JSON.stringify(restErrorBody(error)));
}
