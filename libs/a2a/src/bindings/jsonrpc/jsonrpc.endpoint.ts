import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import { A2aEngine } from '../../engine/a2a.engine.js';
import { A2aError } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import type { StreamResponse } from '../../protocol/a2a.types.js';
import { DEFAULT_SSE_HEARTBEAT_MS } from '../http/sse.writer.js';
import { httpCallContext } from '../http/http-call-context.js';
import type { HttpRequest } from '../http/http-request.js';
import { sendJson } from '../http/json-response.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from '../http/request-body.js';
import { writeSse } from '../http/sse.writer.js';
import { streamResponseJson } from '../http/stream-response.json.js';
import { jsonRpcError, jsonRpcResult, parseJsonRpcRequest, type JsonRpcId } from './jsonrpc.envelope.js';
import { jsonRpcMethods, type JsonRpcMethod } from './jsonrpc.methods.js';

/**
 * One JSON-RPC 2.0 call (§9), from its HTTP request to its answer: shared by the Nest controller and the direct
 * dispatcher. A failure before any answer is thrown, for the caller to answer with {@link answerJsonRpcFailure}.
 */
@Injectable()
export class JsonRpcEndpoint {
  private readonly methods: ReadonlyMap<string, JsonRpcMethod>;
  private readonly maxBodyBytes: number;
  private readonly heartbeatMs: number;

  constructor(@Inject(A2aEngine) engine: A2aEngine, @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions) {
    this.methods = jsonRpcMethods(engine);
    this.maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.heartbeatMs = options.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
  }

  /** Settles once the answer is written, or (for a stream) once it has started. */
  async serve(req: HttpRequest, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req, this.maxBodyBytes);
    if (body === undefined) throw new A2aError('ParseError', 'The request has no body; send a JSON-RPC 2.0 request object');
    // An application/a2a+json body was read here, not by a body parser: put it where the error answer finds the id.
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
    sendJson(res, 200, 'application/json', JSON.stringify(jsonRpcResult(request.id, result)));
  }

  /**
   * Streams the events as SSE frames carrying JSON-RPC responses (§9.4.2). Settles once the first event is out, so an
   * error before it (unknown or terminal task, §6 #17) is thrown and answered as a plain JSON error; a later one
   * becomes the stream's last frame.
   */
  private stream(req: HttpRequest, res: ServerResponse, id: JsonRpcId, events$: Observable<StreamResponse>): Promise<void> {
    // Each frame is the envelope around the event's shared JSON: the same text JSON.stringify of the envelope gives.
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
    return new Promise((resolve, reject) => {
      res.once('close', () => resolve());
      writeSse(req, res, events$, {
        frame: (event) => `${head}${streamResponseJson(event)}}`,
        errorFrame: (error) => `data: ${JSON.stringify(jsonRpcError(id, toA2aError(error)))}`,
        errorBeforeStart: reject,
        started: () => resolve(),
        heartbeatMs: this.heartbeatMs,
      });
    });
  }
}
