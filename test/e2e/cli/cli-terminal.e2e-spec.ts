import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { spawnSync } from 'node:child_process';
import { quote } from '../../../apps/travel-agent/src/book-flight.skill.js';
import { TravelModule } from '../../../apps/travel-agent/src/travel.module.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { freePort } from '../../fixtures/grpc-json.client.js';
import { createTestApplication } from '../../fixtures/test-app.js';
import { compileCli, TmuxPane, type CompiledCli } from './cli.fixture.js';

/**
 * `nestjs-a2a` in a terminal: a tmux pane is the pseudo-terminal (see cli.fixture.ts for how the CLI is compiled).
 * When a task asks for input, the CLI asks the person at the terminal and sends the answer on the same task; the
 * stream's status is one line redrawn in place, so no intermediate status stays on the screen.
 */
let cli: CompiledCli;
let agent: RunningAgent;
let travel: INestApplication;
let travelUrl: string;
const panes: TmuxPane[] = [];

function pane(...args: string[]): TmuxPane {
  const opened = new TmuxPane(['node', cli.main, ...args]);
  panes.push(opened);
  return opened;
}

beforeAll(async () => {
  if (spawnSync('tmux', ['-V']).status !== 0) throw new Error('these tests need tmux');
  cli = compileCli();
  agent = await startConformanceAgent({ push: false });
  const port = await freePort();
  travelUrl = `http://127.0.0.1:${port}`;
  const moduleRef = await Test.createTestingModule({
    imports: [TravelModule.forRoot({ baseUrl: travelUrl, stepDelayMs: 10 })],
  }).compile();
  travel = createTestApplication(moduleRef);
  await travel.listen(port, '127.0.0.1');
}, 150_000);

afterEach(() => {
  for (const opened of panes.splice(0)) opened.close();
});

afterAll(async () => {
  await Promise.all([agent?.close(), travel?.close()]);
  cli?.remove();
});

// A test waits for the screen at most 15 s a step (TmuxPane.waitFor): on a busy machine, a few steps take long.
const STEPS_TIMEOUT = 45_000;

describe('nestjs-a2a in a terminal', () => {
  it(
    'asks the agent question while streaming, sends the answer on the same task, and streams on',
    async () => {
      const terminal = pane('stream', agent.url, 'ask');
      await terminal.waitFor(/\[input-required\] What is your answer\?\n>$/);
      terminal.keys('blue', 'Enter');
      const screen = await terminal.waitFor(/\[exit \d+\]/);
      expect(screen).toBe(
        ['[input-required] What is your answer?', '> blue', '[answer]', 'answer: blue', '[completed]', '[exit 0]'].join(
          '\n',
        ),
      );
    },
    STEPS_TIMEOUT,
  );

  it(
    'books a flight: asks for the missing date, then shows the steps in place and the itinerary',
    async () => {
      const terminal = pane('stream', travelUrl, 'I need to fly from Lisbon to Berlin');
      await terminal.waitFor(/On which date do you want to fly from Lisbon to Berlin\?[^]*\n>$/);
      terminal.keys('2026-12-24', 'Enter');
      const screen = await terminal.waitFor(/\[exit \d+\]/);
      const itinerary = quote('Lisbon', 'Berlin', '2026-12-24');
      expect(screen).toContain(`"flightNumber": "${itinerary.flightNumber}"`);
      expect(screen).toMatch(
        new RegExp(`\\[completed\\] Booked ${itinerary.airline} ${itinerary.flightNumber} from Lisbon`),
      );
      // The working steps were one line, redrawn: none of them is left on the screen.
      expect(screen).not.toContain('[working]');
      expect(screen.endsWith('[exit 0]')).toBe(true);
    },
    STEPS_TIMEOUT,
  );

  it(
    'asks after a blocking send too',
    async () => {
      const terminal = pane('send', agent.url, 'ask');
      await terminal.waitFor(/What is your answer\?\n[^]*\n>$/);
      terminal.keys('green', 'Enter');
      const screen = await terminal.waitFor(/\[exit \d+\]/);
      expect(screen).toContain('answer: green');
      expect(screen.endsWith('[exit 0]')).toBe(true);
    },
    STEPS_TIMEOUT,
  );

  it(
    'exits input-required when the input ends without an answer (Ctrl-D)',
    async () => {
      const terminal = pane('stream', agent.url, 'ask');
      await terminal.waitFor(/\n>$/);
      terminal.keys('C-d');
      const screen = await terminal.waitFor(/\[exit \d+\]/);
      expect(screen).toContain('No answer given: the task still waits for input.');
      expect(screen.endsWith('[exit 6]')).toBe(true);
    },
    STEPS_TIMEOUT,
  );

  it(
    'stops at Ctrl-C, at the prompt or while streaming, naming the task that goes on',
    async () => {
      const asking = pane('stream', agent.url, 'ask');
      await asking.waitFor(/\n>$/);
      asking.keys('C-c');
      expect(await asking.waitFor(/\[exit \d+\]/)).toMatch(
        /Interrupted\. Task [0-9a-f-]+ goes on at the agent[^]*\[exit 130\]$/,
      );

      const slow = pane('stream', agent.url, 'slow', '30000');
      await slow.waitFor(/\[working\]/);
      slow.keys('C-c');
      expect(await slow.waitFor(/\[exit \d+\]/)).toMatch(/Interrupted\. Task [0-9a-f-]+ goes on[^]*\[exit 130\]$/);
    },
    STEPS_TIMEOUT,
  );
});
