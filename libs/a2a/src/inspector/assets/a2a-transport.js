// Calls to the agent's A2A operations over JSON-RPC or HTTP+JSON (A2A v1.0), streams read as Server-Sent Events.

const A2A_VERSION = '1.0';
/** The cookie the login page keeps the credential in: `{"header":…,"value":…}`, URI-encoded. */
export const CREDENTIAL_COOKIE = 'a2a-inspector-credential';

/** The credential the page sends as a header on every call, or undefined. */
export function storedCredential() {
  for (const pair of document.cookie.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === CREDENTIAL_COOKIE) {
      try {
        const { header, value } = JSON.parse(decodeURIComponent(pair.slice(eq + 1).trim()));
        if (typeof header === 'string' && typeof value === 'string') return { header, value };
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** An error answer of the agent, whichever binding sent it. */
export class A2aCallError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/**
 * The agent's operations over one binding. `baseUrl` is the interface's path on this page's origin: the page is
 * served by the agent itself, so the card's own host (which a proxy may rewrite) is not needed.
 */
export class A2aTransport {
  constructor(binding, path) {
    this.binding = binding;
    this.path = path.replace(/\/+$/, '');
    this.nextId = 1;
  }

  /** One unary operation: its result, or an A2aCallError. */
  async call(method, params) {
    const response = await this.fetch(method, params, 'application/json');
    const body = await response.json().catch(() => undefined);
    if (this.binding === 'JSONRPC') {
      if (body?.error) throw jsonRpcError(body.error, response.status);
      return body?.result;
    }
    if (!response.ok) throw errorOf(body, response.status);
    return body;
  }

  /** One streaming operation: calls `onEvent` with each StreamResponse until the stream ends or `signal` aborts it. */
  async stream(method, params, onEvent, signal) {
    const response = await this.fetch(method, params, 'text/event-stream', signal);
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const body = await response.json().catch(() => undefined);
      throw this.binding === 'JSONRPC' && body?.error
        ? jsonRpcError(body.error, response.status)
        : errorOf(body, response.status);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        this.deliver(frame, onEvent);
      }
    }
  }

  deliver(frame, onEvent) {
    const lines = frame.split('\n');
    const data = lines
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (!data) return;
    const body = JSON.parse(data);
    if (this.binding === 'JSONRPC') {
      if (body.error) throw jsonRpcError(body.error);
      return onEvent(body.result);
    }
    if (lines.includes('event: error') || body.error) throw errorOf(body);
    onEvent(body);
  }

  fetch(method, params, accept, signal) {
    const headers = { 'A2A-Version': A2A_VERSION, Accept: accept };
    const credential = storedCredential();
    if (credential) headers[credential.header] = credential.value;
    if (this.binding === 'JSONRPC') {
      headers['Content-Type'] = 'application/json';
      const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
      return fetch(this.path || '/', { method: 'POST', headers, body, signal });
    }
    const route = restRoute(method, params);
    if (route.body !== undefined) headers['Content-Type'] = 'application/json';
    const body = route.body === undefined ? undefined : JSON.stringify(route.body);
    return fetch(`${this.path}${route.path}`, { method: route.method, headers, body, signal });
  }
}

/** The HTTP+JSON route of an operation (spec §11): method, path with its query, and body. */
function restRoute(method, params) {
  const id = encodeURIComponent(params.id ?? '');
  switch (method) {
    case 'SendMessage':
      return { method: 'POST', path: '/message:send', body: params };
    case 'SendStreamingMessage':
      return { method: 'POST', path: '/message:stream', body: params };
    case 'GetTask':
      return { method: 'GET', path: `/tasks/${id}` };
    case 'CancelTask':
      return { method: 'POST', path: `/tasks/${id}:cancel`, body: {} };
    case 'SubscribeToTask':
      return { method: 'GET', path: `/tasks/${id}:subscribe` };
    case 'ListTasks': {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(key, value);
      return { method: 'GET', path: `/tasks?${query}` };
    }
    default:
      throw new Error(`No HTTP+JSON route for ${method}`);
  }
}

/** An HTTP+JSON error (`google.rpc.Status`): the agent's message, then its status. */
function errorOf(body, status) {
  const error = body?.error;
  return new A2aCallError(error ? `${error.message} (${error.status ?? error.code})` : `HTTP ${status}`, status);
}

/** A JSON-RPC error object: the agent's message, then its code. */
function jsonRpcError(error, status) {
  return new A2aCallError(`${error.message} (JSON-RPC ${error.code})`, status);
}
