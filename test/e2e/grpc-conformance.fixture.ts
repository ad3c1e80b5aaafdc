import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConformanceModule } from '../../apps/conformance-agent/src/conformance.module.js';
import { connectA2aGrpc } from '../../libs/a2a/src/index.js';
import { freePort } from './grpc-json.client.js';

export interface ConformanceAgentWithGrpc {
  /** Origin of the HTTP bindings and of the card, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** `127.0.0.1:<port>` of the gRPC binding, as the card lists it. */
  grpcAddress: string;
  app: INestApplication;
  close(): Promise<void>;
}

/**
 * The conformance agent in-process with all three bindings: the HTTP socket is bound first so the card has the real
 * URL (as in test/interop/conformance-agent.server.ts), the gRPC binding on a free port through `connectA2aGrpc`.
 */
export async function startConformanceAgentWithGrpc(subscribeHoldMs: number): Promise<ConformanceAgentWithGrpc> {
  const adapter = new ExpressAdapter();
  const server = createServer(adapter.getInstance());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const grpcAddress = `127.0.0.1:${await freePort()}`;
  const moduleRef = await Test.createTestingModule({
    imports: [ConformanceModule.forRoot({ baseUrl: url, subscribeHoldMs, grpc: { url: grpcAddress } })],
  }).compile();
  const app = moduleRef.createNestApplication(adapter, { logger: false });
  connectA2aGrpc(app);
  await app.startAllMicroservices();
  await app.init();
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
