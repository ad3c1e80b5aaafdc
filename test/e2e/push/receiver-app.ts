import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { StreamResponse, TaskState } from '../../../libs/a2a/src/protocol/a2a.types.js';

export type HttpAdapterName = 'express' | 'fastify';

/** Boots `module` on 127.0.0.1 (a free port) on the given adapter, and returns the app with its base URL. */
export async function startReceiverApp(
  adapter: HttpAdapterName,
  module: unknown,
  configure?: (app: INestApplication) => void,
): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({ imports: [module as never] }).compile();
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  configure?.(app);
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

export interface PushOptions {
  token?: string;
  eventId?: string;
  authorization?: string;
  contentType?: string | null;
  headers?: Record<string, string>;
}

/** POSTs one push notification as an agent would; `body` is sent as is when a string, as JSON otherwise. */
export async function push(
  url: string,
  body: unknown,
  options: PushOptions = {},
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/a2a+json';
  if (options.token !== undefined) headers['x-a2a-notification-token'] = options.token;
  if (options.eventId !== undefined) headers['x-a2a-event-id'] = options.eventId;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.text() };
}

/**
 * Sends the headers and the first `sentBytes` of a body declared `declaredBytes` long, and resolves with the answer
 * that came while the rest was never sent (or rejects after `timeoutMs`): proof the body was not waited for.
 */
export function pushUnfinished(
  url: string,
  headers: Record<string, string>,
  { declaredBytes, sentBytes, timeoutMs = 5000 }: { declaredBytes: number; sentBytes: number; timeoutMs?: number },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-length': String(declaredBytes) } });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('No answer before the body was sent'));
    }, timeoutMs);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.write(Buffer.alloc(sentBytes, 0x20));
  });
}

export function statusUpdate(taskId: string, state: TaskState, contextId = 'ctx-1'): StreamResponse {
  return { statusUpdate: { taskId, contextId, status: { state, timestamp: new Date().toISOString() } } };
}

export function artifactUpdate(taskId: string, text: string, contextId = 'ctx-1'): StreamResponse {
  return { artifactUpdate: { taskId, contextId, artifact: { artifactId: 'a-1', parts: [{ text }] }, append: true } };
}
