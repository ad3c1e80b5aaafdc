import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConformanceModule } from '../../apps/conformance-agent/src/conformance.module.js';
import type { ConformanceOptions } from '../../apps/conformance-agent/src/conformance.options.js';
import { connectA2aGrpc } from '../../libs/a2a/src/grpc.js';
import { freePort } from '../e2e/grpc-json.client.js';

export interface RunningAgent {
  /** The origin the agent listens on, also its card's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** `127.0.0.1:<port>` of the gRPC binding, as the card lists it; only with `withGrpc`. */
  grpcAddress?: string;
  /** The Nest app, for what a test reads of it directly (e.g. the push dispatcher's dead letters). */
  app: INestApplication;
  close(): Promise<void>;
}

export interface StartOptions extends Omit<ConformanceOptions, 'baseUrl' | 'grpc'> {
  /** Also serve gRPC, on a free port, through `connectA2aGrpc`. */
  withGrpc?: boolean;
  /** The HTTP adapter: `@nestjs/platform-express` (default) or `@nestjs/platform-fastify`. */
  adapter?: 'express' | 'fastify';
}

export const HTTP_ADAPTERS = ['express', 'fastify'] as const;

/**
 * Boots the conformance agent in-process on 127.0.0.1 and a free port. The socket is bound first and the module built
 * after, so the card advertises the real URL, which is what the SDK client connects to (no port-picking race).
 */
export async function startConformanceAgent({ withGrpc = false, adapter: adapterName = 'express', ...options }: StartOptions = {}): Promise<RunningAgent> {
  let server: Server;
  let adapter: ExpressAdapter | FastifyAdapter;
  if (adapterName === 'fastify') {
    // Fastify builds on the server it is given, which can then listen before the module is built.
    adapter = new FastifyAdapter({ serverFactory: (handler: RequestListener) => (server = createServer(handler)) });
  } else {
    adapter = new ExpressAdapter();
    server = createServer(adapter.getInstance());
  }
  server = server!;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Nest's gRPC server does not tell the port it bound, so this one is picked just before.
  const grpcAddress = withGrpc ? `127.0.0.1:${await freePort()}` : undefined;
  const moduleRef = await Test.createTestingModule({
    imports: [ConformanceModule.forRoot({ ...options, baseUrl: url, ...(grpcAddress ? { grpc: { url: grpcAddress } } : {}) })],
  }).compile();
  const app = moduleRef.createNestApplication(adapter, { logger: false });
  if (grpcAddress) {
    connectA2aGrpc(app);
    await app.startAllMicroservices();
  }
  await app.init();
  if (adapter instanceof FastifyAdapter) await adapter.getInstance().ready();
  return {
    url,
    grpcAddress,
    app,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}
