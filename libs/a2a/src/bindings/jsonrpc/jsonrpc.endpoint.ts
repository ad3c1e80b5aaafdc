import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import type { A2aInvocation } from '../../context/a2a-invocation.js';
import { A2aEngine } from '../../engine/a2a.engine.js';
import { A2aError } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import { UnexpectedErrorReporter } from '../../errors/unexpected-error.reporter.js';
import { ExtensionRegistry } from '../../extensions/extension.registry.js';
import type { StreamResponse } from '../../protocol/a2a.types.js';
import type { StreamingResult } from '../a2a-operations.host.js';
import { A2A_OPERATIONS, OPERATIONS_BY_NAME } from '../a2a-operations.js';
import { newInvocation } from '../new-invocation.js';
import { A2aHttpPipeline } from '../http/http-pipeline.js';
import { httpProtocolContext } from '../http/http-protocol-context.js';
import type { HttpRequest } from '../http/http-request.js';
import { markPrivate, sendJson } from '../http/json-response.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from '../http/request-body.js';
import { echoExtensions, extensionsHeaders } from '../http/extensions-header.js';
import { DEFAULT_SSE_HEARTBEAT_MS, writeSse } from '../http/sse.writer.js';
import { seqOf } from '../../engine/stream-seq.js';
import { streamResponseJson } from '../http/stream-response.json.js';
import { answerJsonRpcFailure } from './jsonrpc-error.response.js';
import { A2A_JSONRPC_DIALECTS, type JsonRpcDialect, type JsonRpcDialectCall } from './jsonrpc.dialect.js';
import { jsonRpcError, jsonRpcResult, parseJsonRpcRequest, type JsonRpcId } from './jsonrpc.envelope.js';

const METHOD_NAMES = A2A_OPERATIONS.map((operation) => operation.name).join(', ');

/**
 * The JSON-RPC 2.0 binding (§9): one POST endpoint for every method, for the route registered on the HTTP adapter and
 * for the direct dispatcher alike. The method's params, once validated, run through the Nest pipeline
 * (A2aHttpPipeline); every failure, a guard's included, is answered with a JSON-RPC error envelope.
 */
@Injectable()
export class JsonRpcEndpoint {
  private readonly maxBodyBytes: number;
  private readonly heartbeatMs: number;

  constructor(
    @Inject(A2aEngine) private readonly engine: A2aEngine,
    @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
    private readonly pipeline: A2aHttpPipeline,
    private readonly errors: UnexpectedErrorReporter,
    private readonly extensions: ExtensionRegistry,
    @Inject(A2A_JSONRPC_DIALECTS) private readonly dialects: readonly JsonRpcDialect[],
  ) {
    this.maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.heartbeatMs = options.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
  }

  /** Settles once the answer is written, or (for a stream) once it has started; never rejects. */
  async serve(req: HttpRequest, res: ServerResponse): Promise<void> {
    let invocation: A2aInvocation | undefined;
    try {
      const { id, invocation: decoded, dialect } = await this.decode(req);
      invocation = decoded;
      const result = await this.pipeline.run(invocation, req, res);
      if (OPERATIONS_BY_NAME.get(invocation.operation)!.streaming)
        return await this.stream(req, res, id, (result as StreamingResult).events, invocation.extensions, dialect);
      if (invocation.operation === 'GetExtendedAgentCard') markPrivate(res);
      const text = JSON.stringify(jsonRpcResult(id, dialect ? dialect.result(result) : result));
      if (dialect) setHeaders(res, dialect.extensionsHeaders(invocation.extensions));
      else echoExtensions(res, invocation.extensions);
      sendJson(res, 200, 'application/json', text);
    } catch (error) {
      if (this.pipeline.answeredByFilter(error, invocation, req, res)) return;
      answerJsonRpcFailure(req, res, error);
      this.errors.report(error, invocation);
    }
  }

  /**
   * The envelope, the method, the version (a client of another version learns that first), the params validated, then
   * the extensions the call activates (a required one missing is refused like a bad version, before the app's guards
   * run).
   */
  private async decode(
    req: HttpRequest,
  ): Promise<{ id: JsonRpcId; invocation: A2aInvocation; dialect?: JsonRpcDialectCall }> {
    const body = await readJsonBody(req, this.maxBodyBytes);
    if (body === undefined)
      throw new A2aError('ParseError', 'The request has no body; send a JSON-RPC 2.0 request object');
    // An application/a2a+json body was read here, not by a body parser: put it where the error answer finds the id.
    req.body = body;
    const request = parseJsonRpcRequest(body);
    // A call of another version (option `compat`) is served as the v1.0 operation behind it.
    const dialect = this.dialectCallOf(request.method, req);
    const operation = OPERATIONS_BY_NAME.get(dialect ? dialect.operation : request.method);
    if (!operation)
      throw new A2aError('MethodNotFound', `Method "${request.method}" not found; A2A 1.0 methods: ${METHOD_NAMES}`);
    const params = request.params ?? {};
    if (typeof params !== 'object' || Array.isArray(params)) {
      throw A2aError.invalidParams([
        { field: 'params', description: 'Must be a JSON object (A2A methods take named parameters)' },
      ]);
    }
    const protocol = dialect ? dialect.protocol : httpProtocolContext(req);
    const validated = operation.validate(
      dialect ? dialect.request(params as Record<string, unknown>) : params,
      this.engine.validationLimits,
    );
    const extensions = this.extensions.negotiate(protocol.extensions);
    return {
      id: request.id,
      invocation: newInvocation(
        operation,
        'JSONRPC',
        validated,
        { version: protocol.version, extensions },
        req.headers,
      ),
      dialect,
    };
  }

  /** The first dialect's claim on the call; undefined for a v1.0 call. */
  private dialectCallOf(method: string, req: HttpRequest): JsonRpcDialectCall | undefined {
    for (const dialect of this.dialects) {
      const call = dialect.callOf(method, req);
      if (call) return call;
    }
    return undefined;
  }

  /**
   * Streams the events as SSE frames carrying JSON-RPC responses (§9.4.2). Settles once the first event is out, so an
   * error before it (unknown or terminal task) is thrown and answered as a plain JSON error; a later one
   * becomes the stream's last frame.
   */
  private stream(
    req: HttpRequest,
    res: ServerResponse,
    id: JsonRpcId,
    events$: Observable<StreamResponse>,
    extensions: readonly string[],
    dialect?: JsonRpcDialectCall,
  ): Promise<void> {
    // Each frame is the envelope around the event's shared JSON: the same text JSON.stringify of the envelope gives.
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
    return new Promise((resolve, reject) => {
      res.once('close', () => resolve());
      writeSse<StreamResponse>(req, res, events$, {
        frame: dialect
          ? (event) => `${head}${JSON.stringify(dialect.event(event))}}`
          : (event) => `${head}${streamResponseJson(event)}}`,
        errorFrame: (error) => `data: ${JSON.stringify(jsonRpcError(id, toA2aError(error)))}`,
        id: seqOf,
        errorBeforeStart: reject,
        started: () => resolve(),
        headers: dialect ? dialect.extensionsHeaders(extensions) : extensionsHeaders(extensions),
        heartbeatMs: this.heartbeatMs,
      });
    });
  }
}

function setHeaders(res: ServerResponse, headers: Record<string, string> | undefined): void {
  for (const name in headers) res.setHeader(name, headers[name]);
}
