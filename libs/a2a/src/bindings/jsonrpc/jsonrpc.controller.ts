import { Controller, Inject, Post, Req, Res, UseFilters, type Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { tap, type Observable } from 'rxjs';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import { A2aEngine } from '../../engine/a2a.engine.js';
import { A2aError } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import type { StreamResponse } from '../../protocol/a2a.types.js';
import { httpCallContext } from '../http/http-call-context.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from '../http/request-body.js';
import { writeSse } from '../http/sse.writer.js';
import { JsonRpcExceptionFilter } from './jsonrpc-exception.filter.js';
import { jsonRpcError, jsonRpcResult, parseJsonRpcRequest, type JsonRpcId } from './jsonrpc.envelope.js';
import { jsonRpcMethods, type JsonRpcMethod } from './jsonrpc.methods.js';

const DEFAULT_SSE_HEARTBEAT_MS = 15_000;

/**
 * The JSON-RPC 2.0 binding (§9): one POST endpoint at `path` for every method. It is an ordinary Nest controller, so
 * the app's guards and interceptors run on each call as on any route; every error, theirs included, leaves through
 * {@link JsonRpcExceptionFilter} as a JSON-RPC error envelope.
 */
export function createJsonRpcController(path: string): Type {
  @Controller(path)
  @UseFilters(JsonRpcExceptionFilter)
  class A2aJsonRpcController {
    private readonly methods: ReadonlyMap<string, JsonRpcMethod>;
    private readonly maxBodyBytes: number;
    private readonly heartbeatMs: number;

    constructor(@Inject(A2aEngine) engine: A2aEngine, @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions) {
      this.methods = jsonRpcMethods(engine);
      this.maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      this.heartbeatMs = options.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
    }

    @Post()
    async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
      const body = await readJsonBody(req, this.maxBodyBytes);
      if (body === undefined) throw new A2aError('ParseError', 'The request has no body; send a JSON-RPC 2.0 request object');
      // An application/a2a+json body was read here, not by Express: put it where the exception filter finds the id.
      req.body = body;
      const request = parseJsonRpcRequest(body);
      const method = this.methods.get(request.method);
      if (!method) throw new A2aError('MethodNotFound', `Method "${request.method}" not found; A2A 1.0 methods: ${[...this.methods.keys()].join(', ')}`);
      const params = request.params ?? {};
      if (typeof params !== 'object' || Array.isArray(params)) {
        throw A2aError.invalidParams([{ field: 'params', description: 'Must be a JSON object (A2A methods take named parameters)' }]);
      }
      const tenant = (params as { tenant?: unknown }).tenant;
      const call = httpCallContext(req, 'JSONRPC', typeof tenant === 'string' ? tenant : '');
      if (method.streaming) return this.stream(req, res, request.id, method.invoke(params, call));
      const result = await method.invoke(params, call);
      res.status(200).type('application/json').send(JSON.stringify(jsonRpcResult(request.id, result)));
    }

    /**
     * Streams the events as SSE frames carrying JSON-RPC responses (§9.4.2). The handler settles once the first event
     * is out, so an error before it (unknown or terminal task, §6 #17) is thrown here and answered by the filter as
     * a plain JSON error; a later one becomes the stream's last frame.
     */
    private stream(req: Request, res: Response, id: JsonRpcId, events$: Observable<StreamResponse>): Promise<void> {
      return new Promise((resolve, reject) => {
        res.once('close', () => resolve());
        writeSse(req, res, events$.pipe(tap({ next: () => resolve(), complete: () => resolve() })), {
          frame: (event) => JSON.stringify(jsonRpcResult(id, event)),
          errorFrame: (error) => `data: ${JSON.stringify(jsonRpcError(id, toA2aError(error)))}`,
          errorBeforeStart: reject,
          heartbeatMs: this.heartbeatMs,
        });
      });
    }
  }
  return A2aJsonRpcController;
}
