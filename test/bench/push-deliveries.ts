import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverCpuTicks } from './server-cpu.js';
import { ServerProcess } from './server-process.js';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;
const TASKS = 200;
const CHUNKS = 20;
/** Concurrent senders: enough to keep the agent's dispatcher busy, few enough not to measure the senders. */
const SENDERS = 8;
const BOUND_MS = 120_000;

export interface PushDeliveryFigures {
  deliveries: number;
  seconds: number;
  perSecond: number;
  /** Server CPU per delivery beyond running the same tasks without webhooks. */
  cpuMicrosPerDelivery: number;
}

/**
 * Push deliveries per second from our agent (the conformance agent, push on, loopback allowlisted) to a receiver on
 * loopback that answers 204 at once: TASKS tasks of `stream CHUNKS`, each with an inline webhook, so every event of
 * every task is one POST. The same tasks without webhooks first, so the CPU figure is the deliveries' own.
 */
export async function measurePushDeliveries(log: (line: string) => void): Promise<PushDeliveryFigures> {
  let received = 0;
  let completed = 0;
  const receiver: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received++;
      if (Buffer.concat(chunks).toString().includes('TASK_STATE_COMPLETED')) completed++;
      response.writeHead(204).end();
    });
  });
  receiver.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  process.env.A2A_PUSH_ALLOW = '127.0.0.1/32';
  const server = await ServerProcess.start('ours');
  try {
    const send = (withHook: boolean) =>
      fetch(`${server.target.origin}${server.target.jsonRpcPath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `stream ${CHUNKS}` }] },
            ...(withHook ? { configuration: { taskPushNotificationConfig: { url: hook } } } : {}),
          },
        }),
      }).then((res) => res.arrayBuffer());
    const run = async (withHook: boolean) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: SENDERS }, async () => {
          while (next < TASKS) {
            next++;
            await send(withHook);
          }
        }),
      );
    };
    // Warm-up, then the tasks alone, then the same tasks with a webhook each.
    await run(false);
    const plainStart = serverCpuTicks(server.target.pid);
    await run(false);
    const plainTicks = serverCpuTicks(server.target.pid) - plainStart;
    const started = performance.now();
    const pushStart = serverCpuTicks(server.target.pid);
    await run(true);
    const deadline = Date.now() + BOUND_MS;
    while (completed < TASKS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const seconds = (performance.now() - started) / 1000;
    const pushTicks = serverCpuTicks(server.target.pid) - pushStart;
    if (completed < TASKS)
      throw new Error(`only ${completed} of ${TASKS} tasks' COMPLETED delivered within ${BOUND_MS} ms`);
    const figures = {
      deliveries: received,
      seconds,
      perSecond: received / seconds,
      cpuMicrosPerDelivery: (((pushTicks - plainTicks) / TICKS_PER_SECOND) * 1e6) / received,
    };
    log(`push: ${received} deliveries in ${seconds.toFixed(1)} s`);
    return figures;
  } finally {
    await server.stop();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

export function pushDeliveriesTable(figures: PushDeliveryFigures): string {
  return [
    '| push to a loopback receiver | deliveries | deliveries/s | server CPU per delivery, µs |',
    '| --- | ---: | ---: | ---: |',
    `| ours, ${TASKS} tasks × (${CHUNKS} chunks + states), ${SENDERS} senders | ${figures.deliveries} | ${figures.perSecond.toFixed(0)} | ${figures.cpuMicrosPerDelivery.toFixed(0)} |`,
  ].join('\n');
}
