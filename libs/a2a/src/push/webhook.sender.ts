import { request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import type { AuthenticationInfo } from '../protocol/a2a.types.js';
import { PushAddressPolicy } from './push-address.policy.js';
import { pushConfigViolations } from './push-config.rules.js';
import { positiveIntegerOption, type PushDeliveryOptions } from './push-delivery.options.js';
import { WebhookAddressRefusedError } from './push.errors.js';
import { PushMessages } from './push.messages.js';
import { redactUrl, withoutSecrets } from './push.redaction.js';
import { connectWebhook } from './webhook.connector.js';
import { outcomeOfStatus, type DeliveryOutcome } from './webhook.outcome.js';

/** One POST of one event to one webhook. */
export interface WebhookDelivery {
  readonly url: string;
  /** Sent as `Authorization: <scheme> <credentials>` (spec §4.3.3). */
  readonly authentication?: AuthenticationInfo;
  /** Sent as `X-A2A-Notification-Token` whenever set, with or without `authentication`. */
  readonly token?: string;
  /** Sent as `X-A2A-Event-Id`, the same on every attempt, so receivers can drop duplicates (spec §4.3.3). */
  readonly eventId: string;
  /** One StreamResponse in ProtoJSON (spec §4.3.3). */
  readonly body: string;
}

/** Responses are read only to let the receiver finish cleanly; more than this is a misbehaving receiver. */
export const MAX_WEBHOOK_RESPONSE_BYTES = 64 * 1024;
const MAX_EVENT_ID_LENGTH = 1024;
// Ours, not the client's, but it becomes a header value: visible ASCII only.
const EVENT_ID = new RegExp(`^[\\x21-\\x7E]{1,${MAX_EVENT_ID_LENGTH}}$`);

/** A delivery phase ran out of time. */
class DeliveryTimeout extends Error {
  constructor(readonly phase: 'connect' | 'headers' | 'total') {
    super(`${phase} timeout`);
  }
}

/**
 * POSTs push notifications to webhooks (spec §4.3.3, §13.2), one attempt per call: the config is checked
 * against the rules again, the connection may only reach allowed addresses, redirects are not followed, and timeouts
 * bound every phase. It never throws: every failure is an outcome whose message holds no secret.
 */
export class WebhookSender {
  private readonly policy: PushAddressPolicy;
  private readonly connectTimeoutMs: number;
  private readonly headersTimeoutMs: number;
  private readonly totalTimeoutMs: number;
  private readonly secureContext?: SecureContext;

  constructor(
    private readonly options: PushDeliveryOptions = {},
    policy?: PushAddressPolicy,
  ) {
    this.policy = policy ?? new PushAddressPolicy(options);
    this.connectTimeoutMs = positiveIntegerOption(options, 'connectTimeoutMs');
    this.headersTimeoutMs = positiveIntegerOption(options, 'headersTimeoutMs');
    this.totalTimeoutMs = positiveIntegerOption(options, 'totalTimeoutMs');
    // A `ca` alone would replace Node's roots; the option adds to them. Built once: it is costly per connection.
    if (options.ca !== undefined) {
      const extra = typeof options.ca === 'string' || Buffer.isBuffer(options.ca) ? [options.ca] : [...options.ca];
      this.secureContext = createSecureContext({ ca: [...rootCertificates, ...extra] });
    }
  }

  async send(delivery: WebhookDelivery): Promise<DeliveryOutcome> {
    const violations = pushConfigViolations(delivery, this.policy);
    if (violations.length > 0) {
      return {
        kind: 'permanent',
        error: PushMessages.configRefused(violations.map((v) => `${v.field}: ${v.description}`).join('; ')),
      };
    }
    if (typeof delivery.eventId !== 'string' || !EVENT_ID.test(delivery.eventId)) {
      return { kind: 'permanent', error: PushMessages.eventIdInvalid(MAX_EVENT_ID_LENGTH) };
    }
    const url = new URL(delivery.url);
    const shown = redactUrl(url);
    const secrets = [delivery.authentication?.credentials, delivery.token];
    const deadline = new AbortController();
    const connectTimer = setTimeout(() => deadline.abort(new DeliveryTimeout('connect')), this.connectTimeoutMs);
    const totalTimer = setTimeout(() => deadline.abort(new DeliveryTimeout('total')), this.totalTimeoutMs);
    let socket: Socket | undefined;
    try {
      socket = await connectWebhook(url, {
        policy: this.policy,
        resolveHost: this.options.resolveHost,
        secureContext: this.secureContext,
        signal: deadline.signal,
      });
      clearTimeout(connectTimer);
      return await this.exchange(socket, url, delivery, shown, deadline);
    } catch (error) {
      return this.outcomeOfError(error, shown, secrets);
    } finally {
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      socket?.destroy();
    }
  }

  /** Sends the request on the checked socket; resolves once the response is read (capped) or rejects. */
  private exchange(
    socket: Socket,
    url: URL,
    delivery: WebhookDelivery,
    shown: string,
    deadline: AbortController,
  ): Promise<DeliveryOutcome> {
    return new Promise<DeliveryOutcome>((resolve, reject) => {
      const req = request({
        method: 'POST',
        host: url.hostname,
        path: `${url.pathname}${url.search}`,
        headers: headersFor(url, delivery),
        setHost: false,
        createConnection: () => socket,
      });
      const headersTimer = setTimeout(() => deadline.abort(new DeliveryTimeout('headers')), this.headersTimeoutMs);
      let response: IncomingMessage | undefined;
      // Before the answer, running out of time fails the attempt; after it, it only cuts the body short.
      const onAbort = () => (response ? response.destroy() : req.destroy(deadline.signal.reason as Error));
      deadline.signal.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        clearTimeout(headersTimer);
        deadline.signal.removeEventListener('abort', onAbort);
      };
      req.once('response', (answer) => {
        response = answer;
        clearTimeout(headersTimer);
        const outcome = outcomeOfStatus(answer.statusCode ?? 0, answer.headers['retry-after'], shown);
        // The answer is known; the body is read (up to the cap, within the total timeout) and dropped.
        void discard(answer).then(() => {
          done();
          resolve(outcome);
        });
      });
      req.on('error', (error) => {
        if (response) return;
        done();
        reject(error);
      });
      req.end(delivery.body);
    });
  }

  private outcomeOfError(error: unknown, shown: string, secrets: ReadonlyArray<string | undefined>): DeliveryOutcome {
    if (error instanceof WebhookAddressRefusedError) return { kind: 'permanent', error: error.message };
    let message: string;
    if (error instanceof DeliveryTimeout) {
      message =
        error.phase === 'connect'
          ? PushMessages.connectTimeout(shown, this.connectTimeoutMs)
          : error.phase === 'headers'
            ? PushMessages.headersTimeout(shown, this.headersTimeoutMs)
            : PushMessages.totalTimeout(shown, this.totalTimeoutMs);
    } else {
      message = PushMessages.failed(shown, describe(error));
    }
    // Node's own messages hold no header values, but they are third-party text: scrub them all the same.
    return { kind: 'retry', error: withoutSecrets(message, secrets) };
  }
}

/** Ours are exactly these (spec §4.3.3); Node adds only `Connection: close`. */
function headersFor(url: URL, { authentication, token, eventId, body }: WebhookDelivery): Record<string, string> {
  const headers: Record<string, string> = {
    Host: url.host,
    'Content-Type': 'application/a2a+json',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-A2A-Event-Id': eventId,
  };
  if (authentication)
    headers.Authorization = authentication.credentials
      ? `${authentication.scheme} ${authentication.credentials}`
      : authentication.scheme;
  if (token) headers['X-A2A-Notification-Token'] = token;
  return headers;
}

function discard(response: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= MAX_WEBHOOK_RESPONSE_BYTES) response.destroy();
    });
    response.once('end', resolve);
    response.once('close', resolve);
    response.on('error', () => resolve());
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}
