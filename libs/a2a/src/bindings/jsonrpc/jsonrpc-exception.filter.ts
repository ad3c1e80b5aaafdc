import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { toA2aError } from '../../errors/to-a2a-error.js';
import { httpStatusOf, jsonRpcError, requestIdOf } from './jsonrpc.envelope.js';

/**
 * Answers every failure of a JSON-RPC call with a JSON-RPC error envelope: protocol errors from the engine and the
 * validators, and what the user's guards, interceptors and pipes throw (an UnauthorizedException becomes HTTP 401 with
 * code -31401). Scoped to the JSON-RPC controller, so the app's own filters keep the rest of the app.
 */
@Catch()
export class JsonRpcExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const error = toA2aError(exception);
    // Errors after the first SSE event travel as the stream's last frame (sse.writer.ts); nothing is left to send here.
    if (res.headersSent) {
      res.end();
      return;
    }
    // The controller leaves the parsed body on `req.body`, so the id is echoed whichever parser read it.
    const id = requestIdOf(http.getRequest<Request>().body);
    res.status(httpStatusOf(error)).type('application/json').send(JSON.stringify(jsonRpcError(id, error)));
  }
}
