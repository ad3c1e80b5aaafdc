import type { IncomingMessage } from 'node:http';
import { A2aError } from '../../errors/a2a.error.js';
import type { HttpRequest } from './http-request.js';
import { isJsonMediaType } from './json-media-type.js';

/** `limits.maxBodyBytes` when unset. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The JSON body of a request to either HTTP binding, `undefined` when there is none. Both JSON media types are accepted
 * (`application/json`, `application/a2a+json`), and only they, by the request's Content-Type, even for a request
 * without a body (see isJsonMediaType): anything else is refused before a byte of it is read here, whatever a body
 * parser of the app made of it. Nest's global parser has already read `application/json` bodies (with its own size
 * limit, 100 kB unless the app changes it); `application/a2a+json` bodies are still on the socket and are read here, at
 * most `maxBytes` of them.
 *
 * @throws A2aError `UnsupportedMediaType` for any other Content-Type, or none; `PayloadTooLarge` beyond `maxBytes`;
 * `ParseError` for anything but UTF-8 JSON.
 */
export async function readJsonBody(req: HttpRequest, maxBytes: number): Promise<unknown> {
  if (!isJsonMediaType(req.headers['content-type'])) {
    // What an app-wide parser made of the body (a form's fields) is no part of the request, not even the id of an error.
    req.body = undefined;
    return discardThenThrow(req, new A2aError('UnsupportedMediaType'));
  }
  if (req.readableEnded) return alreadyRead(req.body);
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    return discardThenThrow(req, new A2aError('InvalidRequest', `Content-Encoding ${encoding} is not supported`));
  }
  if (Number(req.headers['content-length']) > maxBytes) return discardThenThrow(req, tooLarge(maxBytes));
  const raw = await readAtMost(req, maxBytes);
  return raw.length === 0 ? undefined : parseJson(raw);
}

/** Another parser consumed the stream: take what it left, re-parsing raw forms (e.g. from an app-wide text parser). */
function alreadyRead(body: unknown): unknown {
  if (Buffer.isBuffer(body)) return body.length === 0 ? undefined : parseJson(body);
  if (typeof body === 'string') return body === '' ? undefined : parseJson(Buffer.from(body));
  return body;
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(utf8.decode(raw));
  } catch {
    throw new A2aError('ParseError');
  }
}

function readAtMost(req: HttpRequest, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      detach();
      discardThenThrow(req, tooLarge(maxBytes)).catch(reject);
    };
    const onEnd = () => {
      detach();
      resolve(Buffer.concat(chunks, size));
    };
    // Nobody is left to answer a client that went away; the rejection only ends the handler.
    const onClose = () => {
      detach();
      reject(new A2aError('InvalidRequest', 'The request body was not received in full'));
    };
    const detach = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
  });
}

/**
 * Reads the rest of a refused body into nothing, settling once it has all arrived or the client has gone: the error is
 * answered after that, as the Express body parser does, since answering while the client is still uploading makes many
 * clients report a broken connection (EPIPE) instead of the error. Never rejects.
 */
export function discardBody(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded || req.destroyed) return resolve();
    const done = () => resolve();
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}

function discardThenThrow(req: HttpRequest, error: A2aError): Promise<never> {
  return discardBody(req).then(() => Promise.reject(error));
}

function tooLarge(maxBytes: number): A2aError {
  return new A2aError('PayloadTooLarge', `Request body is larger than ${maxBytes} bytes`);
}
