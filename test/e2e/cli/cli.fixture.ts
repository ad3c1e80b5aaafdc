import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { compileEntry } from '../../fixtures/compiled-entry.js';

/**
 * The CLI as users run it: `libs/a2a/src/cli/main.ts` and what it imports, compiled by tsc (the repository's
 * tsconfig, as `npm run build` does) into a temporary directory, and started by plain node in a child process. So
 * the e2e tests need no `npm run build` first, and they run the JavaScript Node runs, not ts-jest's.
 */
export interface CompiledCli {
  /** The compiled `main.js`. */
  readonly main: string;
  remove(): void;
}

// The processes under test are plain Node, not Jest's ESM mode.
const CHILD_ENV = { ...process.env, NODE_OPTIONS: '', A2A_API_KEY: '', A2A_BEARER_TOKEN: '' };

/** Compiles the CLI (tens of seconds on a busy machine: give the hook a long timeout). */
export function compileCli(): CompiledCli {
  return compileEntry('libs/a2a/src/cli/main.ts', 'nestjs-a2a-cli-');
}

/** How a CLI run ended. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts the CLI without a terminal (stdin closed, stdout and stderr pipes). */
export function spawnCli(cli: CompiledCli, args: readonly string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [cli.main, ...args], {
    env: { ...CHILD_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs the CLI to its exit, killing it after `timeoutMs` (a hang then fails the test on its exit code). */
export function runCli(
  cli: CompiledCli,
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<CliRun> {
  return finished(spawnCli(cli, args, env), timeoutMs);
}

/** Waits for a child started by {@link spawnCli} to exit, with what it wrote. */
export function finished(child: ChildProcess, timeoutMs = 20_000): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** The first line `child` writes to stdout. */
export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end < 0) return;
      child.stdout!.off('data', onData);
      resolvePromise(out.slice(0, end));
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the CLI exited (${code}) before writing a line: ${out}`)));
  });
}

/**
 * A pseudo-terminal: a tmux session (on a server of its own, `-L`) running one command in a pane of a fixed size.
 * What the pane shows is read with `capture-pane`, keys typed with `send-keys`.
 */
export class TmuxPane {
  private static sessions = 0;
  private readonly socket = `nestjs-a2a-cli-${process.pid}`;
  private readonly session = `cli${TmuxPane.sessions++}`;

  constructor(command: readonly string[], env: Record<string, string> = {}) {
    const line = [
      ...Object.entries({ ...env, NODE_OPTIONS: '' }).map(([k, v]) => `${k}=${quote(v)}`),
      ...command.map(quote),
    ];
    // The exit code stays on screen after the command, for the test to read.
    this.tmux(
      'new-session',
      '-d',
      '-s',
      this.session,
      '-x',
      '100',
      '-y',
      '40',
      `${line.join(' ')}; echo "[exit $?]"; sleep 600`,
    );
  }

  /** The pane's text, trailing blank lines dropped (tmux drops each line's trailing spaces: the prompt "> " reads ">"). */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', this.session).replace(/\n+$/, '');
  }

  /** Resolves with the screen once `pattern` is on it; rejects with the screen after `timeoutMs`. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`${pattern} not on the screen after ${timeoutMs} ms:\n${screen}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  }

  /** Types `keys` (tmux key names such as `Enter`, `C-c`, `C-d`, or literal text). */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.session, ...keys);
  }

  /** Ends the session (and the tmux server with its last session). */
  close(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-session', '-t', this.session]);
  }

  private tmux(...args: string[]): string {
    const result = spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env: CHILD_ENV });
    if (result.status !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
    return result.stdout;
  }
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
