import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { EventIdWindow } from './event-id.window.js';
import { readBodyAtMost } from './push-body.reader.js';
import { PushEventHub } from './push-event.hub.js';
import { EVENT_ID_HEADER, NOTIFICATION_TOKEN_HEADER, PUSH_MEDIA_TYPES } from './push-receiver.constants.js';
import { PushReceiverMessages } from './push-receiver.messages.js';
import type { A2aPushRequest, A2aPushTaskTokens } from './push-receiver.options.js';
import { PUSH_RECEIVER_SETTINGS } from './push-receiver-module-definition.js';
import type { ResolvedPushReceiverOptions } from './push-receiver-options.check.js';
import { PushTokenMatcher } from './push-token.matcher.js';
import { readPushedEvent, type PushedEvent } from './pushed-event.reader.js';

/** The answer to one push notification, written by the route of the app's HTTP adapter. */
export interface PushAnswer {
  readonly status: 200 | 400 | 401 | 413 | 415 | 500;
  /** The reason of a refusal, sent as `{"error":{"code","message"}}`. */
  readonly message?: string;
  /** The body was left (partly) unread and is too large to drain: the connection closes after the answer. */
  readonly close?: boolean;
}

/** Where the body is: still on a stream, or already parsed by the app's body parser (Express's `express.json()`). */
export type PushBody = { readonly stream: Readable } | { readonly parsed: unknown };

const OK: PushAnswer = { status: 200 };
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Takes one push notification, in the order that costs an unverified sender the least: the sender is verified from
 * the headers alone (401), then the media type (415) and the declared size (413) are checked, and only then is the
 * body read, at most `maxBodyBytes` of it (413), parsed and checked as a StreamResponse (400). Tokens given per task
 * are checked then, against the task the event names (401). An event whose `X-A2A-Event-Id` the same sender already
 * sent for the same task is acknowledged (200) and dropped; any other is published to A2aPushEvents.
 */
@Injectable()
export class PushNotificationEndpoint {
  private readonly logger = new Logger('A2aPushReceiver');
  /** One list for every task. */
  private readonly tokens: PushTokenMatcher | undefined;
  private readonly tokensOfTask: A2aPushTaskTokens | undefined;
  private readonly seen: EventIdWindow;

  constructor(
    @Inject(PUSH_RECEIVER_SETTINGS) private readonly settings: ResolvedPushReceiverOptions,
    private readonly hub: PushEventHub,
  ) {
    this.tokens = Array.isArray(settings.tokens) ? new PushTokenMatcher(settings.tokens) : undefined;
    this.tokensOfTask = typeof settings.tokens === 'function' ? settings.tokens : undefined;
    this.seen = new EventIdWindow(settings.dedupWindow);
  }

  async receive(req: IncomingMessage, body: PushBody): Promise<PushAnswer> {
    const refuse = (status: PushAnswer['status'], message: string, readStopped = false): PushAnswer => ({
      status,
      message,
      close: readStopped || ('stream' in body && !body.stream.readableEnded && !this.drainable(req)),
    });

    const request = pushRequestOf(req);
    const verified = await this.verify(request);
    if (verified === undefined) return refuse(500, PushReceiverMessages.verifyFailed());
    if (!verified) return refuse(401, PushReceiverMessages.unauthenticated());

    const encoding = headerOf(req, 'content-encoding');
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity')
      return refuse(415, PushReceiverMessages.unsupportedEncoding(encoding));
    const contentType = headerOf(req, 'content-type');
    if (!PUSH_MEDIA_TYPES.has(mediaTypeOf(contentType)))
      return refuse(415, PushReceiverMessages.unsupportedMediaType(contentType));
    if (Number(req.headers['content-length']) > this.settings.maxBodyBytes)
      return refuse(413, PushReceiverMessages.tooLarge(this.settings.maxBodyBytes));

    let parsed: unknown;
    if ('parsed' in body) {
      parsed = alreadyParsed(body.parsed);
    } else {
      const read = await readBodyAtMost(body.stream, this.settings.maxBodyBytes);
      if ('refused' in read) {
        // An aborted upload has nobody left to answer; the answer only ends the handler.
        return read.refused === 'tooLarge'
          ? refuse(413, PushReceiverMessages.tooLarge(this.settings.maxBodyBytes), true)
          : refuse(400, PushReceiverMessages.notJson(), true);
      }
      parsed = parseJson(read.bytes);
    }
    if (parsed === NOT_JSON) return refuse(400, PushReceiverMessages.notJson());
    const pushed = readPushedEvent(parsed);
    if ('problem' in pushed) return refuse(400, PushReceiverMessages.notStreamResponse(pushed.problem));
    if (this.tokensOfTask) {
      const ofTask = await this.matchesTaskTokens(this.tokensOfTask, pushed, request.notificationToken);
      if (ofTask === undefined) return refuse(500, PushReceiverMessages.verifyFailed());
      if (!ofTask) return refuse(401, PushReceiverMessages.unauthenticated());
    }

    if (request.eventId !== undefined && !this.seen.firstSeen(request.eventId, senderOf(request, pushed))) return OK;
    this.hub.publish(pushed);
    return OK;
  }

  /** True, false, or undefined when the app's `verify` hook failed (the sender should retry, not give up). */
  private async verify(request: A2aPushRequest): Promise<boolean | undefined> {
    if (this.tokens && !this.tokens.matches(request.notificationToken)) return false;
    // Per-task tokens are matched once the body names the task; a sender with none is refused before it is read.
    if (this.tokensOfTask && !request.notificationToken) return false;
    if (!this.settings.verify) return true;
    try {
      return (await this.settings.verify(request)) === true;
    } catch (error) {
      this.logger.error(
        `The verify hook of A2aPushReceiverModule failed: ${error instanceof Error ? error.message : String(error)}`,
        error instanceof Error ? error.stack : undefined,
      );
      return undefined;
    }
  }

  /** Whether `token` is one of those given for the event's task; undefined when the app's function failed. */
  private async matchesTaskTokens(
    tokensOfTask: A2aPushTaskTokens,
    pushed: PushedEvent,
    token: string | undefined,
  ): Promise<boolean | undefined> {
    if (pushed.taskId === undefined) return false;
    let given: string | readonly string[] | undefined;
    try {
      given = await tokensOfTask(pushed.taskId);
    } catch (error) {
      this.logger.error(
        PushReceiverMessages.taskTokensFailed(error instanceof Error ? error.message : String(error)),
        error instanceof Error ? error.stack : undefined,
      );
      return undefined;
    }
    const expected = (typeof given === 'string' ? [given] : Array.isArray(given) ? given : []).filter(
      (entry): entry is string => typeof entry === 'string' && entry !== '',
    );
    return new PushTokenMatcher(expected).matches(token);
  }

  /** An unread body small enough that node may discard it after the answer and keep the connection. */
  private drainable(req: IncomingMessage): boolean {
    const length = Number(req.headers['content-length'] ?? Number.NaN);
    return Number.isFinite(length) && length <= this.settings.maxBodyBytes;
  }
}

const NOT_JSON = Symbol('not JSON');

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    return NOT_JSON;
  }
}

/** A body another parser read: JSON already parsed, or raw bytes or text (an app-wide raw or text parser). */
function alreadyParsed(body: unknown): unknown {
  if (Buffer.isBuffer(body)) return parseJson(body);
  if (typeof body === 'string') return parseJson(Buffer.from(body));
  return body === undefined ? NOT_JSON : body;
}

/**
 * Who sent an event, for its event id: the credentials it presented and the task it is about. The headers hold no NUL,
 * so only the task id, last, may: the fields stay apart.
 */
function senderOf(request: A2aPushRequest, pushed: PushedEvent): string {
  return `${request.notificationToken ?? ''}\0${request.authorization ?? ''}\0${pushed.taskId ?? ''}`;
}

function pushRequestOf(req: IncomingMessage): A2aPushRequest {
  return {
    notificationToken: headerOf(req, NOTIFICATION_TOKEN_HEADER),
    authorization: headerOf(req, 'authorization'),
    eventId: headerOf(req, EVENT_ID_HEADER) || undefined,
    headers: req.headers,
    raw: req,
  };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `application/a2a+json; charset=utf-8` → `application/a2a+json`. */
function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
}
