import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { AgentCard, SendMessageResponse, Task } from '../../../libs/a2a/src/index.js';
import { freePort } from '../../fixtures/grpc-json.client.js';
import { startNodeProcess, stopNodeProcess } from '../../fixtures/child-process.js';

/**
 * The sample agents as `npm start` runs them: compiled by tsc and started by plain Node. ts-jest compiles differently
 * (it tolerates CommonJS named imports that Node's ESM loader refuses), so this is the only test that would catch a
 * library that type-checks and passes its tests but does not start.
 */
const apps = [
  // The travel agent serves the inspector page outside production (jest runs with NODE_ENV=test), and says where.
  { name: 'travel-agent', text: 'weather in Tokyo', started: /Inspector at .*\/a2a\/inspector/ },
  { name: 'conformance-agent', text: 'echo built', started: /Agent card at/ },
];

describe.each(apps)('built $name', ({ name, text, started }) => {
  const entry = `dist/apps/${name}/src/main.js`;
  let child: ChildProcess;
  let base: string;

  beforeAll(async () => {
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run "npm run build" first (npm test does)`);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ({ child } = await startNodeProcess(
      entry,
      { HOST: '127.0.0.1', PORT: String(port), GRPC_PORT: String(await freePort()), A2A_BASE_URL: base },
      started,
    ));
  }, 30_000);

  afterAll(() => stopNodeProcess(child));

  it('serves its card and answers a JSON-RPC SendMessage', async () => {
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as AgentCard;
    const jsonRpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC')!;
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
    const res = await fetch(jsonRpc.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'built-1', role: 'ROLE_USER', parts: [{ text }] } },
      }),
    });
    const body = (await res.json()) as { result: SendMessageResponse & { task: Task } };
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  if (name === 'travel-agent') {
    it('serves the inspector page and its files, copied next to the compiled code', async () => {
      for (const file of ['', '/inspector.js', '/a2a-transport.js', '/schema-checks.js', '/inspector.css']) {
        const res = await fetch(`${base}/a2a/inspector${file}`);
        expect([file, res.status]).toEqual([file, 200]);
      }
    });
  }
});
