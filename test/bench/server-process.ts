import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { BenchTarget } from './driver-protocol.js';
import type { MemoryReply, ProbeRequest } from './memory-probe.js';
import { SERVER_LAYOUTS, type ServerName } from './server-layouts.js';

const STARTUP_TIMEOUT_MS = 30_000;
const MEMORY_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 10_000;
/** How long after the HTTP side is up a gRPC listener may take to appear. */
const GRPC_STARTUP_MS = 3_000;
/** How much of a server's output is kept, to explain why it failed. */
const OUTPUT_TAIL_CHARS = 2000;

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** One server under test, in its own process with --expose-gc and an IPC channel to its memory probe. */
export class ServerProcess {
  private output = '';
  private exitReason: string | undefined;

  private constructor(
    readonly name: ServerName,
    private readonly child: ChildProcess,
    readonly target: BenchTarget,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', (code, signal) => {
      this.exitReason = `exited (${signal ?? `code ${code}`})`;
    });
  }

  /** Starts the server and waits until its agent card answers; throws with the server's own output when it cannot. */
  static async start(name: ServerName, extraNodeArgs: string[] = []): Promise<ServerProcess> {
    const layout = SERVER_LAYOUTS[name];
    const port = await freePort();
    // Our agent also listens for gRPC once that binding lands: a port of its own keeps it off the default 50051.
    const grpcPort = await freePort();
    const child = fork(fileURLToPath(new URL(layout.entry, import.meta.url)), [], {
      execArgv: ['--expose-gc', ...extraNodeArgs],
      env: {
        ...process.env,
        PORT: String(port),
        A2A_BASE_URL: `http://127.0.0.1:${port}`,
        GRPC_PORT: String(grpcPort),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const target: BenchTarget = {
      origin: `http://127.0.0.1:${port}`,
      jsonRpcPath: layout.jsonRpcPath,
      restPrefix: layout.restPrefix,
      grpcAddress: `127.0.0.1:${grpcPort}`,
      pid: child.pid!,
    };
    const server = new ServerProcess(name, child, target);
    try {
      await server.waitUntilReady();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    let lastError = '';
    while (Date.now() < deadline) {
      if (this.exitReason) throw new Error(`${this.exitReason} at startup: ${this.lastOutputLine()}`);
      try {
        const response = await fetch(`${this.target.origin}/.well-known/agent-card.json`);
        await response.arrayBuffer();
        if (response.ok) return;
        lastError = `agent card: HTTP ${response.status}`;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`not ready within ${STARTUP_TIMEOUT_MS / 1000} s (${lastError}): ${this.lastOutputLine()}`);
  }

  /**
   * Whether anything listens on the gRPC port: not every server has that binding (ours before it lands), and without
   * this check every gRPC measurement would wait out its connection timeout.
   */
  async servesGrpc(): Promise<boolean> {
    const [host, port] = this.target.grpcAddress.split(':');
    const deadline = Date.now() + GRPC_STARTUP_MS;
    while (Date.now() < deadline && !this.exitReason) {
      const open = await new Promise<boolean>((resolve) => {
        const socket = connect(Number(port), host);
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      if (open) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return false;
  }

  /** RSS and heap after a full GC, from the probe inside the server. */
  async memory(): Promise<MemoryReply> {
    if (this.exitReason) throw new Error(this.exitReason);
    const reply = new Promise<MemoryReply>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('memory probe did not answer')), MEMORY_TIMEOUT_MS);
      this.child.once('message', (message: MemoryReply) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
    this.child.send({ type: 'memory' } satisfies ProbeRequest);
    return reply;
  }

  /** Asks the server to exit normally (so a CPU profile gets written), and kills it if it does not. */
  async stop(): Promise<void> {
    if (this.exitReason) return;
    const exited = once(this.child, 'exit');
    if (this.child.connected) this.child.send({ type: 'exit' } satisfies ProbeRequest);
    else this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Why the server is gone, if it is: a crash mid-measurement explains that measurement's failure. */
  get failure(): string | undefined {
    return this.exitReason && `${this.exitReason}: ${this.lastOutputLine()}`;
  }

  private lastOutputLine(): string {
    const lines = this.output
      .trim()
      .split('\n')
      .filter((line) => line.trim() !== '');
    // Node prints the error message a few lines above the end of a stack trace; keep both ends short.
    const errorLine = lines.find((line) => /error/i.test(line));
    return (errorLine ?? lines[lines.length - 1] ?? 'no output').trim().slice(0, 300);
  }
}
