import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';

/**
 * `npm run demo:travel` is `npm run build` then this entry: run as a child process, as the script runs it, it must
 * start the four agents, book the trip and exit 0 within its 60 s bound.
 */
const ENTRY = 'dist/apps/travel-orchestrator/src/demo.js';

describe('npm run demo:travel', () => {
  it('books the trip, prints the itinerary and every task id, stops its agents and exits 0', async () => {
    if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run "npm run build" first (npm test does)`);
    const child = spawn(process.execPath, [ENTRY], {
      env: { ...process.env, NODE_OPTIONS: '', STEP_DELAY_MS: '10' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];

    if (code !== 0) throw new Error(`The demo exited ${code}:\n${output}`);
    expect(output).toContain("You → orchestrator: arrange next week's trip to Lisbon");
    expect(output).toMatch(/\[input-required\] hotels asks: Which of these two hotels\?/);
    expect(output).toMatch(/You → orchestrator: Hotel Miradouro, please\. \(the cheapest of the 2\)/);
    expect(output).toMatch(
      /\[completed\] traveller's trip from Paris to Lisbon, .*Hotel Miradouro booked as HR-[0-9A-F]{6}/,
    );
    const uuid = '[0-9a-f-]{36}';
    expect(output).toMatch(new RegExp(`orchestrator +${uuid} +TASK_STATE_COMPLETED`));
    expect(output).toMatch(
      new RegExp(`calendar +${uuid} +TASK_STATE_COMPLETED +\\(free-days, skill find-free-days, over GRPC\\)`),
    );
    expect(output).toMatch(
      new RegExp(`flights +${uuid} +TASK_STATE_COMPLETED +\\(flight, skill hold-flight, over JSONRPC\\)`),
    );
    expect(output).toMatch(
      new RegExp(`hotels +${uuid} +TASK_STATE_COMPLETED +\\(hotel, skill find-hotel, over JSONRPC\\)`),
    );
    expect(output).toContain('Done: the trip is booked.');
  }, 75_000);
});
