import 'reflect-metadata';
import { ExpressAdapter } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConformanceModule } from '../../apps/conformance-agent/src/conformance.module.js';
import type { ConformanceOptions } from '../../apps/conformance-agent/src/conformance.options.js';

export interface RunningAgent {
  /** The origin the agent listens on, also its card's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Boots the conformance agent in-process on 127.0.0.1 and a free port. The socket is bound first and the module built
 * after, so the card advertises the real URL, which is what the SDK client connects to (no port-picking race).
 */
export async function startConformanceAgent(options: Omit<ConformanceOptions, 'baseUrl'> = {}): Promise<RunningAgent> {
  const adapter = new ExpressAdapter();
  const server = createServer(adapter.getInstance());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const moduleRef = await Test.createTestingModule({ imports: [ConformanceModule.forRoot({ ...options, baseUrl: url })] }).compile();
  const app = moduleRef.createNestApplication(adapter, { logger: false });
  await app.init();
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}
