import { Agent as HttpAgent, request as httpRequest, type ClientRequestArgs, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { Readable } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';
import { A2aClientError, A2aTransportError, type A2aClientErrorContext } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import { stripBrackets } from '../push/push-address.policy.js';
import type { ClientAddressGuard } from './client-address.guard.js';

/** One HTTP request as the transports and the card resolver make it. */
export interface ClientHttpRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal: AbortSignal;
  /** Query parameters that carry a credential (an API key): shown as `***` in every message and `.url`. */
  readonly secretQuery?: readonly string[];
}

/** Error codes of a connection that was never established: nothing reached the agent. */
const CONNECT_FAILURES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/**
 * The client's HTTP stack: node:http(s) through keep-alive agents whose connections are opened by the SSRF guard
 * (lookup and post-connect checks, TLS after them, the client certificate when configured), answered as WHATWG
 * `Response`s so the transports read bodies and SSE streams as with `fetch`. A `fetch` given in the options replaces
 * the stack; URLs and resolved addresses are still checked first. No proxy is read from the environment and no
 * redirect is followed.
 */
export class ClientHttp {
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;

  constructor(
    private readonly guard: ClientAddressGuard,
    tls: ConnectionOptions = {},
    private readonly customFetch?: typeof fetch,
  ) {
    this.httpAgent = new GuardedHttpAgent(guard);
    this.httpsAgent = new GuardedHttpsAgent(guard, tls);
  }

  /**
   * Sends the request once; resolves at the response headers.
   * @throws A2aAddressRefusedError (before or at connect), A2aTransportError `Network`, or the signal's reason.
   */
  async fetch(url: URL, request: ClientHttpRequest, context: A2aClientErrorContext = {}): Promise<Response> {
    const shown = redactedUrl(url, request.secretQuery);
    const where = { ...context, url: shown };
    this.guard.checkUrl(url, shown);
    const headers =
      request.body === undefined
        ? request.headers
        : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
    if (this.customFetch) {
      const pinned = await this.pinned(url, headers);
      try {
        return await this.customFetch(pinned.url, {
          method: request.method,
          headers: pinned.headers,
          body: request.body,
          signal: request.signal,
          redirect: 'manual',
        });
      } catch (error) {
        throw request.signal.aborted ? request.signal.reason : networkError(error, `${request.method} ${shown}`, where);
      }
    }
    const secure = url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(
        url,
        { method: request.method, headers, agent: secure ? this.httpsAgent : this.httpAgent, signal: request.signal },
        resolve,
      );
      req.once('error', (error) =>
        reject(
          request.signal.aborted ? request.signal.reason : networkError(error, `${request.method} ${shown}`, where),
        ),
      );
      req.end(request.body);
    });
    return toResponse(response, request.method, where);
  }

  /**
   * What a custom fetch is given, once the guard has checked every address of the URL's host. A fetch resolves the
   * host again itself, and DNS may answer differently the second time (rebinding to an address the guard refuses), so:
   * - plain http to a host name is pinned: the URL names the checked address and `Host` the original host, so the
   *   fetch connects where the check looked (no second lookup);
   * - https keeps the name, which TLS needs (SNI, certificate); an address DNS rebinds it to cannot prove the name, so
   *   the handshake fails before any request byte (or credential) is written. The fetch API offers no way to pin
   *   the address under a TLS name, and the option's JSDoc says what a fetch that does not verify certificates must do;
   * - an IP literal is what was checked.
   */
  private async pinned(
    url: URL,
    headers: Readonly<Record<string, string>>,
  ): Promise<{ url: URL; headers: Readonly<Record<string, string>> }> {
    const [address] = await this.guard.resolve(url.hostname);
    if (url.protocol !== 'http:' || isIP(stripBrackets(url.hostname)) !== 0) return { url, headers };
    const pinned = new URL(url.href);
    pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
    return { url: pinned, headers: { ...headers, host: url.host } };
  }

  /** Closes the pooled connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

class GuardedHttpAgent extends HttpAgent {
  constructor(private readonly guard: ClientAddressGuard) {
    super({ keepAlive: true });
  }

  override createConnection(
    options: ClientRequestArgs,
    callback?: (error: Error | null, socket: Duplex) => void,
  ): Duplex | null | undefined {
    this.guard.connect(
      { host: options.hostname ?? options.host ?? '', port: Number(options.port) || 80 },
      (error, socket) => callback?.(error, socket!),
    );
    return undefined;
  }
}

class GuardedHttpsAgent extends HttpsAgent {
  constructor(
    private readonly guard: ClientAddressGuard,
    private readonly tls: ConnectionOptions,
  ) {
    super({ keepAlive: true, ...tls });
  }

  override createConnection(
    options: ClientRequestArgs,
    callback?: (error: Error | null, socket: Duplex) => void,
  ): Duplex | null | undefined {
    const tls: ConnectionOptions = { ...this.tls, ALPNProtocols: ['http/1.1'] };
    this.guard.connect(
      { host: options.hostname ?? options.host ?? '', port: Number(options.port) || 443, tls },
      (error, socket) => callback?.(error, socket!),
    );
    return undefined;
  }
}

/** `url` with the values of the `secret` query parameters replaced by `***`, for messages and `.url`. */
export function redactedUrl(url: URL, secret: readonly string[] | undefined): string {
  if (!secret || secret.length === 0) return url.href;
  const copy = new URL(url.href);
  for (const name of secret) {
    if (copy.searchParams.has(name)) copy.searchParams.set(name, '***');
  }
  return copy.href;
}

/** A socket-level failure as the client's error: `connectFailed` when the connection never opened. */
export function networkError(error: unknown, what: string, context: A2aClientErrorContext = {}): A2aClientError {
  if (error instanceof A2aClientError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const inner =
    error instanceof AggregateError ? (error.errors[0] as NodeJS.ErrnoException | undefined)?.code : undefined;
  const connectFailed = CONNECT_FAILURES.has(code ?? '') || CONNECT_FAILURES.has(inner ?? '');
  const why = (error as Error | undefined)?.message || code || String(error);
  return new A2aTransportError('Network', A2aClientMessages.network(what, why), {
    ...context,
    cause: error,
    connectFailed,
  });
}

function toResponse(res: IncomingMessage, method: string, context: A2aClientErrorContext): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
    } catch {
      // A header value fetch's Headers refuses (e.g. non-Latin-1) is not one the client reads.
    }
  }
  const status = res.statusCode ?? 0;
  const empty = method === 'HEAD' || status === 204 || status === 205 || status === 304;
  try {
    if (empty) {
      res.resume();
      return new Response(null, { status, headers });
    }
    return new Response(Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>, {
      status,
      statusText: res.statusMessage,
      headers,
    });
  } catch (error) {
    res.destroy();
    throw new A2aTransportError(
      'InvalidResponse',
      A2aClientMessages.invalidResponse(`${method} ${context.url}`, `HTTP status ${status}`),
      { ...context, cause: error },
    );
  }
}

/**
 * The body, refused past `maxBytes` (counted as it streams, before any parsing).
 * @throws A2aTransportError `InvalidResponse` (too large) or `Network` (the connection broke).
 */
export async function readBody(
  response: Response,
  maxBytes: number,
  what: string,
  context: A2aClientErrorContext = {},
): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new A2aTransportError('InvalidResponse', A2aClientMessages.responseTooLarge(what, maxBytes), context);
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new A2aTransportError('InvalidResponse', A2aClientMessages.responseTooLarge(what, maxBytes), context);
      }
      chunks.push(value);
    }
  } catch (error) {
    throw networkError(error, what, context);
  }
  return Buffer.concat(chunks);
}

/** The body as JSON (UTF-8, at most `maxBytes`); undefined for an empty body. */
export async function readJson(
  response: Response,
  maxBytes: number,
  what: string,
  context: A2aClientErrorContext = {},
): Promise<unknown> {
  const bytes = await readBody(response, maxBytes, what, context);
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw new A2aTransportError(
      'InvalidResponse',
      A2aClientMessages.invalidResponse(what, 'the body is not UTF-8 JSON'),
      { ...context, cause: error },
    );
  }
}
