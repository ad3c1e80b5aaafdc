import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { InvalidPushOptionsError } from '../../../libs/a2a/src/push/push.errors.js';
import { PushMessages } from '../../../libs/a2a/src/push/push.messages.js';
import type { PushDeliveryOptions } from '../../../libs/a2a/src/push/push-delivery.options.js';
import {
  MAX_WEBHOOK_RESPONSE_BYTES,
  WebhookSender,
  type WebhookDelivery,
} from '../../../libs/a2a/src/push/webhook.sender.js';
import { createTestCertificates, type TestCertificates } from '../../fixtures/test-certificates.js';
import { WebhookReceiver } from '../../fixtures/webhook-receiver.js';

/** The loopback receiver (an ephemeral port) is let through the allowlist, which also lets it use plain http. */
const LOOPBACK: PushDeliveryOptions = {
  allowedCidrs: ['127.0.0.1/32'],
  allowedPorts: 'any',
  connectTimeoutMs: 2_000,
  headersTimeoutMs: 2_000,
  totalTimeoutMs: 4_000,
};
const BODY = JSON.stringify({
  statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } },
});

function delivery(url: string, extra: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return { url, eventId: 'task-1:1', body: BODY, ...extra };
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const started = Date.now();
  const result = await run();
  return [result, Date.now() - started];
}

describe('WebhookSender delivery (spec §4.3.3)', () => {
  let receiver: WebhookReceiver;
  const sender = new WebhookSender(LOOPBACK);

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  describe('the request', () => {
    it('POSTs the StreamResponse as application/a2a+json with Authorization, token and event id, and nothing else of ours', async () => {
      const outcome = await sender.send(
        delivery(receiver.url('/hook?tenant=t1'), {
          authentication: { scheme: 'Bearer', credentials: 'c.r.e.d' },
          token: 'tok-123',
        }),
      );
      expect(outcome).toEqual({ kind: 'delivered', status: 204 });
      expect(receiver.received).toHaveLength(1);
      const [request] = receiver.received;
      expect(request).toMatchObject({ method: 'POST', path: '/hook?tenant=t1', body: BODY });
      expect(request.headers).toMatchObject({
        host: `127.0.0.1:${receiver.port}`,
        'content-type': 'application/a2a+json',
        'content-length': String(Buffer.byteLength(BODY)),
        authorization: 'Bearer c.r.e.d',
        'x-a2a-notification-token': 'tok-123',
        'x-a2a-event-id': 'task-1:1',
      });
      expect([...request.rawHeaderNames].sort()).toEqual([
        'Authorization',
        'Connection',
        'Content-Length',
        'Content-Type',
        'Host',
        'X-A2A-Event-Id',
        'X-A2A-Notification-Token',
      ]);
      expect(request.headers.connection).toBe('close');
    });

    it('sends no Authorization or token header when the config has none', async () => {
      await sender.send(delivery(receiver.url()));
      expect([...receiver.received[0].rawHeaderNames].sort()).toEqual([
        'Connection',
        'Content-Length',
        'Content-Type',
        'Host',
        'X-A2A-Event-Id',
      ]);
    });

    it('sends the scheme alone when authentication has no credentials, and the token beside Authorization', async () => {
      await sender.send(delivery(receiver.url(), { authentication: { scheme: 'Negotiate' }, token: 't' }));
      expect(receiver.received[0].headers).toMatchObject({
        authorization: 'Negotiate',
        'x-a2a-notification-token': 't',
      });
    });

    it('counts the body in bytes, not characters', async () => {
      const body = JSON.stringify({ message: { parts: [{ text: 'héllo 🌍' }] } });
      await sender.send(delivery(receiver.url(), { body }));
      expect(receiver.received[0].body).toBe(body);
      expect(receiver.received[0].headers['content-length']).toBe(String(Buffer.byteLength(body)));
    });
  });

  describe('classifying the answer (spec §4.3.3: only 2xx is delivered)', () => {
    it.each([200, 201, 202, 204, 299])('%i is delivered', async (status) => {
      receiver.respond = (_req, res) => res.writeHead(status).end('ok');
      expect(await sender.send(delivery(receiver.url()))).toEqual({ kind: 'delivered', status });
    });

    it.each([408, 425, 429, 500, 502, 503, 504, 599])('%i is retried', async (status) => {
      receiver.respond = (_req, res) => res.writeHead(status).end();
      expect(await sender.send(delivery(receiver.url()))).toEqual({
        kind: 'retry',
        status,
        error: PushMessages.answered(`http://127.0.0.1:${receiver.port}/hook`, status),
      });
    });

    it.each([400, 401, 403, 404, 405, 410, 413, 422])('%i is permanent', async (status) => {
      receiver.respond = (_req, res) => res.writeHead(status).end();
      expect(await sender.send(delivery(receiver.url()))).toMatchObject({ kind: 'permanent', status });
    });

    it('reads Retry-After in seconds', async () => {
      receiver.respond = (_req, res) => res.writeHead(503, { 'Retry-After': '7' }).end();
      expect(await sender.send(delivery(receiver.url()))).toMatchObject({
        kind: 'retry',
        status: 503,
        retryAfterMs: 7_000,
      });
    });

    it('reads Retry-After as an HTTP date', async () => {
      const at = new Date(Date.now() + 60_000);
      receiver.respond = (_req, res) => res.writeHead(429, { 'Retry-After': at.toUTCString() }).end();
      const outcome = await sender.send(delivery(receiver.url()));
      expect(outcome).toMatchObject({ kind: 'retry', status: 429 });
      expect(outcome.kind === 'retry' && outcome.retryAfterMs).toBeGreaterThan(55_000);
      expect(outcome.kind === 'retry' && outcome.retryAfterMs).toBeLessThanOrEqual(60_000);
    });

    it('ignores an unreadable Retry-After', async () => {
      receiver.respond = (_req, res) => res.writeHead(503, { 'Retry-After': 'later' }).end();
      expect(await sender.send(delivery(receiver.url()))).not.toHaveProperty('retryAfterMs');
    });

    it.each([301, 302, 303, 307, 308])('%i is permanent and not followed', async (status) => {
      receiver.respond = (req, res) =>
        req.url === '/hook'
          ? res.writeHead(status, { Location: receiver.url('/followed') }).end()
          : res.writeHead(204).end();
      expect(await sender.send(delivery(receiver.url()))).toEqual({
        kind: 'permanent',
        status,
        error: PushMessages.redirected(`http://127.0.0.1:${receiver.port}/hook`, status),
      });
      expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
    });
  });

  describe('network failures are retried', () => {
    it('a refused connection', async () => {
      const port = await closedPort();
      const outcome = await sender.send(delivery(`http://127.0.0.1:${port}/hook`));
      expect(outcome).toMatchObject({ kind: 'retry' });
      expect(outcome.kind === 'retry' && outcome.error).toContain('ECONNREFUSED');
      expect(outcome).not.toHaveProperty('status');
    });

    it('a connection reset before any answer', async () => {
      receiver.respond = (req) => req.socket.destroy();
      expect(await sender.send(delivery(receiver.url()))).toMatchObject({ kind: 'retry' });
    });

    it('an answer that is not HTTP', async () => {
      receiver.respond = (req) => req.socket.end('SSH-2.0-OpenSSH\r\n\r\n');
      expect(await sender.send(delivery(receiver.url()))).toMatchObject({ kind: 'retry' });
    });
  });

  describe('timeouts (spec §4.3.3: bounded, configurable)', () => {
    it('no response headers in time: retried, within the headers timeout', async () => {
      const impatient = new WebhookSender({ ...LOOPBACK, headersTimeoutMs: 150 });
      receiver.respond = () => undefined;
      const [outcome, ms] = await timed(() => impatient.send(delivery(receiver.url())));
      expect(outcome).toEqual({
        kind: 'retry',
        error: PushMessages.headersTimeout(`http://127.0.0.1:${receiver.port}/hook`, 150),
      });
      expect(ms).toBeLessThan(1_500);
    });

    it('no answer within the total time: retried', async () => {
      const impatient = new WebhookSender({ ...LOOPBACK, headersTimeoutMs: 10_000, totalTimeoutMs: 150 });
      receiver.respond = () => undefined;
      const [outcome, ms] = await timed(() => impatient.send(delivery(receiver.url())));
      expect(outcome).toEqual({
        kind: 'retry',
        error: PushMessages.totalTimeout(`http://127.0.0.1:${receiver.port}/hook`, 150),
      });
      expect(ms).toBeLessThan(1_500);
    });

    it('no connection in time (here a lookup that never answers): retried', async () => {
      const impatient = new WebhookSender({
        ...LOOPBACK,
        allowedHosts: ['slow.test'],
        connectTimeoutMs: 150,
        resolveHost: () => new Promise(() => undefined),
      });
      const [outcome, ms] = await timed(() => impatient.send(delivery('http://slow.test/hook')));
      expect(outcome).toEqual({ kind: 'retry', error: PushMessages.connectTimeout('http://slow.test/hook', 150) });
      expect(ms).toBeLessThan(1_500);
    });

    it('a 2xx whose body never ends is still delivered, cut at the total timeout', async () => {
      const impatient = new WebhookSender({ ...LOOPBACK, totalTimeoutMs: 300 });
      receiver.respond = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('still going');
      };
      const [outcome, ms] = await timed(() => impatient.send(delivery(receiver.url())));
      expect(outcome).toEqual({ kind: 'delivered', status: 200 });
      expect(ms).toBeLessThan(1_500);
    });
  });

  it(`reads at most ${MAX_WEBHOOK_RESPONSE_BYTES} bytes of the answer, then hangs up`, async () => {
    const patient = new WebhookSender({ ...LOOPBACK, totalTimeoutMs: 10_000 });
    let written = 0;
    let hungUp = false;
    receiver.respond = (_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!hungUp && written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', () => (hungUp = true));
      pump();
    };
    const [outcome, ms] = await timed(() => patient.send(delivery(receiver.url())));
    expect(outcome).toEqual({ kind: 'delivered', status: 200 });
    expect(ms).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hungUp).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  describe('secrets never reach an error (spec §13.2)', () => {
    const secrets = { authentication: { scheme: 'Bearer', credentials: 'CRED-s3cr3t' }, token: 'TOKEN-s3cr3t' };

    it('redacts the URL query in answer errors', async () => {
      receiver.respond = (_req, res) => res.writeHead(500).end('CRED-s3cr3t TOKEN-s3cr3t');
      const outcome = await sender.send(delivery(receiver.url('/hook?key=QUERY-s3cr3t'), secrets));
      expect(outcome).toMatchObject({
        kind: 'retry',
        error: PushMessages.answered(`http://127.0.0.1:${receiver.port}/hook?…`, 500),
      });
      expect(JSON.stringify(outcome)).not.toMatch(/s3cr3t/);
    });

    it('in network errors', async () => {
      receiver.respond = (req) => req.socket.destroy();
      const outcome = await sender.send(delivery(receiver.url('/hook?key=QUERY-s3cr3t'), secrets));
      expect(outcome.kind).toBe('retry');
      expect(JSON.stringify(outcome)).not.toMatch(/s3cr3t/);
    });

    it('in a refused config', async () => {
      const outcome = await sender.send(
        delivery(receiver.url('/hook?key=QUERY-s3cr3t'), {
          authentication: { scheme: 'Bearer', credentials: 'CRED-s3cr3t\r\nX-Evil: 1' },
        }),
      );
      expect(outcome).toEqual({
        kind: 'permanent',
        error: PushMessages.configRefused(`authentication.credentials: ${PushMessages.credentialsInvalid(4096)}`),
      });
      expect(receiver.received).toHaveLength(0);
    });
  });

  it('refuses a config that no longer passes the rules, sending nothing', async () => {
    const outcome = await sender.send(
      delivery(receiver.url(), { authentication: { scheme: 'Bearer x', credentials: 'y' } }),
    );
    expect(outcome).toMatchObject({ kind: 'permanent' });
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses an event id that cannot be a header value', async () => {
    expect(await sender.send(delivery(receiver.url(), { eventId: 'a\r\nb' }))).toMatchObject({ kind: 'permanent' });
    expect(await sender.send(delivery(receiver.url(), { eventId: '' }))).toMatchObject({ kind: 'permanent' });
    expect(receiver.received).toHaveLength(0);
  });

  it.each([{ connectTimeoutMs: 0 }, { headersTimeoutMs: -1 }, { totalTimeoutMs: 1.5 }])(
    'refuses the option %p at bootstrap',
    (options) => {
      expect(() => new WebhookSender(options)).toThrow(InvalidPushOptionsError);
    },
  );
});

describe('WebhookSender over https', () => {
  let certs: TestCertificates;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    certs = await createTestCertificates();
  });
  beforeEach(async () => {
    receiver = await WebhookReceiver.start(certs.server);
  });
  afterEach(async () => {
    await receiver.stop();
  });

  it('delivers to an IP literal whose certificate names it', async () => {
    const sender = new WebhookSender({ ...LOOPBACK, ca: certs.ca.cert });
    expect(await sender.send(delivery(receiver.url()))).toEqual({ kind: 'delivered', status: 204 });
    expect(receiver.received[0].headers['content-type']).toBe('application/a2a+json');
  });

  it('delivers to an allowlisted host name, resolved by DNS and verified by name (SNI)', async () => {
    const sender = new WebhookSender({ ...LOOPBACK, allowedHosts: ['localhost'], ca: certs.ca.cert });
    expect(await sender.send(delivery(receiver.url('/hook', 'localhost')))).toEqual({ kind: 'delivered', status: 204 });
    expect(receiver.received[0].headers.host).toBe(`localhost:${receiver.port}`);
  });

  it('retries, sending nothing, when the certificate is not trusted', async () => {
    const sender = new WebhookSender(LOOPBACK);
    const outcome = await sender.send(
      delivery(receiver.url(), { authentication: { scheme: 'Bearer', credentials: 'CRED-s3cr3t' } }),
    );
    expect(outcome).toMatchObject({ kind: 'retry' });
    expect(receiver.received).toHaveLength(0);
  });

  it('retries, sending nothing, when the certificate names another host', async () => {
    const sender = new WebhookSender({
      ...LOOPBACK,
      allowedHosts: ['webhook.test'],
      ca: certs.ca.cert,
      resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const outcome = await sender.send(delivery(`https://webhook.test:${receiver.port}/hook`));
    expect(outcome).toMatchObject({ kind: 'retry' });
    expect(outcome.kind === 'retry' && outcome.error).toMatch(/altname|certificate/i);
    expect(receiver.received).toHaveLength(0);
  });
});
