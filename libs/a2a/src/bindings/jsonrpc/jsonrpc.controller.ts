import { Controller, Inject, Post, Req, Res, UseFilters, type Type } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { HttpRequest } from '../http/http-request.js';
import { JsonRpcExceptionFilter } from './jsonrpc-exception.filter.js';
import { JsonRpcEndpoint } from './jsonrpc.endpoint.js';

/**
 * The JSON-RPC 2.0 binding (§9): one POST endpoint at `path` for every method. It is an ordinary Nest controller, so
 * the app's guards and interceptors run on each call as on any route; every error, theirs included, leaves through
 * {@link JsonRpcExceptionFilter} as a JSON-RPC error envelope.
 */
export function createJsonRpcController(path: string): Type {
  @Controller(path)
  @UseFilters(JsonRpcExceptionFilter)
  class A2aJsonRpcController {
    constructor(@Inject(JsonRpcEndpoint) private readonly endpoint: JsonRpcEndpoint) {}

    @Post()
    handle(@Req() req: HttpRequest, @Res() res: ServerResponse): Promise<void> {
      return this.endpoint.serve(req, res);
    }
  }
  return A2aJsonRpcController;
}
