import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { quote } from '../../../apps/travel-agent/src/book-flight.skill.js';
import { TravelModule } from '../../../apps/travel-agent/src/travel.module.js';
import type { AgentCard, StreamResponse, Task } from '../../../libs/a2a/src/index.js';
import { CliExitCode } from '../../../libs/a2a/src/cli/cli.exit-codes.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { freePort } from '../../fixtures/grpc-json.client.js';
import { createTestApplication } from '../../fixtures/test-app.js';
import { compileCli, finished, firstLine, runCli, spawnCli, type CompiledCli } from './cli.fixture.js';

/**
 * `nestjs-a2a` without a terminal (pipes, as in scripts and CI), compiled and run by plain node (see cli.fixture.ts)
 * against the conformance agent and the travel agent over loopback sockets: what it prints, its JSON lines, and its
 * exit codes.
 */
let cli: CompiledCli;
let agent: RunningAgent;

beforeAll(async () => {
  cli = compileCli();
  agent = await startConformanceAgent({ withGrpc: true, push: false });
}, 150_000);

afterAll(async () => {
  await agent?.close();
  cli?.remove();
});

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('nestjs-a2a against the conformance agent', () => {
  it('prints the card for people, and as JSON', async () => {
    const text = await runCli(cli, ['card', agent.url]);
    expect(text.code).toBe(CliExitCode.Completed);
    expect(text.stdout).toContain('A2A conformance agent');
    expect(text.stdout).toContain(`JSONRPC   ${agent.url}/`);
    expect(text.stdout).toContain(`GRPC      ${agent.grpcAddress}`);
    const json = await runCli(cli, ['card', agent.url, '--json']);
    expect((JSON.parse(json.stdout) as AgentCard).skills.map((skill) => skill.id)).toEqual(['conformance']);
  });

  it('streams a task: a status line per state and the chunks appended as they arrive', async () => {
    const run = await runCli(cli, ['stream', agent.url, 'stream', '3']);
    expect(run).toEqual({
      code: CliExitCode.Completed,
      stdout: '[working]\n[stream]\nchunk 1chunk 2chunk 3\n[completed]\n',
      stderr: '',
    });
  });

  it('streams JSON, one event per line, on every binding', async () => {
    for (const binding of ['jsonrpc', 'rest', 'grpc']) {
      const run = await runCli(cli, ['stream', agent.url, 'stream', '2', '--json', '--binding', binding]);
      expect(run.code).toBe(CliExitCode.Completed);
      const events = lines(run.stdout).map((line) => JSON.parse(line) as StreamResponse);
      expect(events.map((event) => Object.keys(event)[0])).toEqual([
        'task',
        'artifactUpdate',
        'artifactUpdate',
        'statusUpdate',
      ]);
      const last = events[3] as { statusUpdate: { status: { state: string } } };
      expect(last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it.each([
    ['fail', CliExitCode.Failed, '[failed] Failed on purpose'],
    ['reject', CliExitCode.Rejected, '[rejected] Rejected on purpose'],
    ['ask', CliExitCode.InputRequired, '[input-required] What is your answer?'],
    ['auth', CliExitCode.AuthRequired, '[auth-required] Please authenticate'],
    ['echo done', CliExitCode.Completed, '[completed]'],
  ])('exits by the final state: "%s" → %i', async (text, code, shown) => {
    for (const command of ['send', 'stream']) {
      const run = await runCli(cli, [command, agent.url, text]);
      expect({ command, code: run.code }).toEqual({ command, code });
      expect(run.stdout).toContain(shown);
    }
  });

  it('continues a task with --task and --context: the input-required answered from a script', async () => {
    const asked = await runCli(cli, ['send', agent.url, 'ask', '--json']);
    expect(asked.code).toBe(CliExitCode.InputRequired);
    const { task } = JSON.parse(asked.stdout) as { task: Task };
    const answered = await runCli(cli, ['send', agent.url, 'blue', '--task', task.id, '--context', task.contextId]);
    expect(answered.code).toBe(CliExitCode.Completed);
    expect(answered.stdout).toContain('[answer]\nanswer: blue');

    const got = await runCli(cli, ['get', agent.url, task.id, '--json']);
    expect((JSON.parse(got.stdout) as Task).status.state).toBe('TASK_STATE_COMPLETED');
    const listed = await runCli(cli, [
      'list',
      agent.url,
      '--context',
      task.contextId,
      '--state',
      'completed',
      '--json',
    ]);
    expect((JSON.parse(listed.stdout) as { tasks: Task[] }).tasks.map((t) => t.id)).toEqual([task.id]);
    const text = await runCli(cli, ['list', agent.url, '--context', task.contextId]);
    expect(lines(text.stdout)).toEqual([`${task.id}  completed       ${task.contextId}`, '1 of 1 task(s)']);
  });

  it('cancels a running task; its stream and a subscriber end with the canceled exit code', async () => {
    const streaming = spawnCli(cli, ['stream', agent.url, 'slow', '30000', '--json']);
    const streamed = finished(streaming, 30_000);
    const { task } = JSON.parse(await firstLine(streaming)) as { task: Task };
    const subscriber = spawnCli(cli, ['subscribe', agent.url, task.id, '--json']);
    const subscribed = finished(subscriber, 30_000);
    expect((JSON.parse(await firstLine(subscriber)) as { task: Task }).task.id).toBe(task.id);

    const canceled = await runCli(cli, ['cancel', agent.url, task.id]);
    expect(canceled.code).toBe(CliExitCode.Completed);
    expect(canceled.stdout).toContain('[canceled]');
    expect((await streamed).code).toBe(CliExitCode.Canceled);
    expect((await subscribed).code).toBe(CliExitCode.Canceled);
  }, 40_000);

  it('exits with the agent-error code for an A2A error, and says what it was', async () => {
    const run = await runCli(cli, ['get', agent.url, 'no-such-task']);
    expect(run.code).toBe(CliExitCode.AgentError);
    expect(run.stderr).toMatch(/not found/i);
  });

  it('exits with the network code when the agent is not there', async () => {
    const nobody = await runCli(cli, ['card', `http://127.0.0.1:${await freePort()}`, '--timeout', '2']);
    expect(nobody.code).toBe(CliExitCode.Network);
    expect(nobody.stderr).not.toBe('');
  });

  it('exits with the usage code for a bad command line, before calling anyone', async () => {
    const run = await runCli(cli, ['send', agent.url]);
    expect(run.code).toBe(CliExitCode.Usage);
    expect(run.stderr).toContain('"send" needs a message text or --data.');
    expect((await runCli(cli, ['--help'])).stdout).toContain('Exit codes:');
  });
});

describe('nestjs-a2a with credentials', () => {
  let secured: RunningAgent;

  beforeAll(async () => {
    secured = await startConformanceAgent({ security: { apiKeys: { alice: 'key-a' } }, push: false });
  });
  afterAll(() => secured?.close());

  it('sends the API key in the header the card names, from the flag or A2A_API_KEY', async () => {
    expect((await runCli(cli, ['send', secured.url, 'echo hi'])).code).toBe(CliExitCode.AuthRequired);
    expect((await runCli(cli, ['send', secured.url, 'echo hi', '--api-key', 'wrong'])).code).toBe(
      CliExitCode.AuthRequired,
    );
    expect((await runCli(cli, ['send', secured.url, 'echo hi', '--api-key', 'key-a'])).code).toBe(
      CliExitCode.Completed,
    );
    const fromEnv = await runCli(cli, ['stream', secured.url, 'echo env'], { A2A_API_KEY: 'key-a' });
    expect(fromEnv.code).toBe(CliExitCode.Completed);
    expect(fromEnv.stdout).toContain('[echo]\nenv');
  });
});

describe('nestjs-a2a against the travel agent', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const moduleRef = await Test.createTestingModule({
      imports: [TravelModule.forRoot({ baseUrl: url, stepDelayMs: 10 })],
    }).compile();
    app = createTestApplication(moduleRef);
    await app.listen(port, '127.0.0.1');
  });
  afterAll(() => app?.close());

  it('streams a booking asked for with a data part and a skill: each step, then the itinerary', async () => {
    const run = await runCli(cli, [
      'stream',
      url,
      '--skill',
      'book-flight',
      '--data',
      '{"from":"Paris","to":"Tokyo","date":"2026-12-24"}',
    ]);
    const itinerary = quote('Paris', 'Tokyo', '2026-12-24');
    expect(run.code).toBe(CliExitCode.Completed);
    expect(lines(run.stdout)).toEqual([
      '[working] Searching flights from Paris to Tokyo on 2026-12-24…',
      '[working] Comparing fares…',
      `[working] Booking ${itinerary.airline} ${itinerary.flightNumber}…`,
      '[itinerary]',
      ...lines(JSON.stringify(itinerary, null, 2)),
      `[completed] Booked ${itinerary.airline} ${itinerary.flightNumber} from Paris to Tokyo on 2026-12-24, departing ` +
        `${itinerary.departureTime}, for ${itinerary.price.amount} EUR.`,
    ]);
  });

  it('exits with the network code when the card offers no binding asked for', async () => {
    const run = await runCli(cli, ['send', url, 'weather in Tokyo', '--binding', 'grpc']);
    expect(run.code).toBe(CliExitCode.Network);
    expect(run.stderr).not.toBe('');
  });
});
