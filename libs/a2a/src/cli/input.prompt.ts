import { createInterface } from 'node:readline/promises';
import type { CliIo } from './cli.io.js';

/**
 * Asks the person at the terminal for the input a task requires, until a non-empty line. Resolves `undefined` when
 * the input ends (Ctrl-D); Ctrl-C aborts through `abort`, as it would outside the prompt (the terminal is in raw
 * mode while readline reads, so no SIGINT reaches the process).
 */
export async function askForInput(io: CliIo, signal: AbortSignal, abort: () => void): Promise<string | undefined> {
  const lines = createInterface({ input: io.stdin, output: io.stdout, terminal: true });
  lines.on('SIGINT', abort);
  const ended = new Promise<undefined>((resolve) => lines.once('close', () => resolve(undefined)));
  try {
    for (;;) {
      const answer = await Promise.race([lines.question('> ', { signal }), ended]);
      if (answer === undefined) return undefined;
      if (answer.trim() !== '') return answer.trim();
    }
  } finally {
    lines.close();
  }
}
