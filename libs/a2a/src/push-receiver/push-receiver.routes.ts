import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { UnsupportedHttpAdapterError } from '../errors/unsupported-http-adapter.error.js';
import { PushNotificationEndpoint, type PushAnswer, type PushBody } from './push-notification.endpoint.js';
import { PUSH_RECEIVER_SETTINGS } from './push-receiver-module-definition.js';
import { PushReceiverMessages } from './push-receiver.messages.js';
import type { ResolvedPushReceiverOptions } from './push-receiver-options.check.js';

/** What the receiver uses of a Fastify instance (structural, so the package does not import fastify). */
interface FastifyScope {
  register(plugin: (scope: FastifyScope) => Promise<void>): unknown;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    type: string,
    parser: (request: unknown, payload: Readable, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  route(options: {
    method: 'POST';
    url: string;
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<void>;
  }): unknown;
}

interface FastifyRequestLike {
  raw: IncomingMessage;
  body?: unknown;
}

interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  send(payload?: string): FastifyReplyLike;
}

/**
 * Mounts the webhook (POST at `path`, below the app's global prefix) on the app's HTTP adapter at module init, on
 * Express and on Fastify, as the agent's own routes are mounted (bindings/http/http-routes.ts).
 *
 * Not a controller, for two reasons. The body must stay unread until the sender is verified, and a controller's
 * handler runs after Fastify has parsed the body (and Fastify has no parser for `application/a2a+json` unless the app
 * adds one); here Fastify gets a scope whose only parser hands the stream over unread. And the webhook authenticates
 * its callers itself (`tokens`, `verify`): the app's global guards check its own users, whose credentials an agent
 * pushing events does not have.
 *
 * On Express, Nest's app-wide `express.json()` runs before every route: an `application/json` body (not an
 * `application/a2a+json` one) is read by it, up to its own limit (100 kB unless the app sets another), before the
 * receiver sees the request. Apps that want those refused unread too create the app with `bodyParser: false`.
 */
@Injectable()
export class PushReceiverRoutes implements OnModuleInit {
  private readonly logger = new Logger('A2aPushReceiver');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: ApplicationConfig,
    private readonly endpoint: PushNotificationEndpoint,
    @Inject(PUSH_RECEIVER_SETTINGS) private readonly settings: ResolvedPushReceiverOptions,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    // Absent in a standalone application context.
    if (!adapter) return;
    const path = joinPath(this.config.getGlobalPrefix(), this.settings.path);
    const type = adapter.getType();
    if (type === 'express') {
      adapter.post(path, (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
        // Read by the app's body parser (it ended the stream), or still on the socket.
        const body: PushBody = req.readableEnded && req.body !== undefined ? { parsed: req.body } : { stream: req };
        void this.answer(req, body).then((answer) => writeAnswer(res, answer));
      });
    } else if (type === 'fastify') {
      this.registerOnFastify(adapter.getInstance<FastifyScope>(), path);
    } else {
      throw new UnsupportedHttpAdapterError(PushReceiverMessages.unsupportedHttpAdapter(type));
    }
  }

  private registerOnFastify(instance: FastifyScope, path: string): void {
    instance.register(async (scope) => {
      // In this scope only: every body, of any media type, reaches the handler unread (the payload stream itself,
      // after the app's preParsing hooks), so the receiver verifies the sender before reading it.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      scope.route({
        method: 'POST',
        url: path,
        handler: async (request, reply) => {
          const stream = isReadable(request.body) ? request.body : request.raw;
          const answer = await this.answer(request.raw, { stream });
          reply.code(answer.status);
          if (answer.close) reply.header('connection', 'close');
          if (answer.message === undefined) reply.send();
          else reply.header('content-type', 'application/json; charset=utf-8').send(errorBody(answer));
        },
      });
    });
  }

  private answer(req: IncomingMessage, body: PushBody): Promise<PushAnswer> {
    return this.endpoint.receive(req, body).catch((error: unknown): PushAnswer => {
      this.logger.error(
        `A push notification could not be taken: ${String(error)}`,
        error instanceof Error ? error.stack : undefined,
      );
      return { status: 500, message: 'Internal error', close: true };
    });
  }
}

function writeAnswer(res: ServerResponse, answer: PushAnswer): void {
  if (res.headersSent || res.destroyed) return;
  res.statusCode = answer.status;
  if (answer.close) res.setHeader('Connection', 'close');
  if (answer.message === undefined) return void res.end();
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(errorBody(answer));
}

function errorBody(answer: PushAnswer): string {
  return JSON.stringify({ error: { code: answer.status, message: answer.message } });
}

function isReadable(value: unknown): value is Readable {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Readable).on === 'function' &&
    typeof (value as Readable).read === 'function'
  );
}

/** Segments joined by single slashes, with a leading one and no trailing one (`/` alone for the root). */
function joinPath(...parts: string[]): string {
  const joined = `/${parts.join('/')}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}
