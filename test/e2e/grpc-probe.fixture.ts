import 'reflect-metadata';
import { Module, type DynamicModule, type INestApplication, type ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  reply,
  working,
  type A2aModuleExtras,
  type A2aModuleOptions,
  type SkillContext,
  type SkillEvent,
} from '../../libs/a2a/src/index.js';
import { connectA2aGrpc, grpcBinding, type A2aGrpcOptions } from '../../libs/a2a/src/grpc.js';
import { freePort } from './grpc-json.client.js';
import { createTestApplication } from './test-app.js';

/**
 * A skill for the gRPC tests, keyed on the first word of the message:
 * `echo <text>` completes with an artifact `<text>`; `message <text>` replies with a Message; `slow <ms>` stays WORKING
 * for <ms> (or until canceled), then completes; `big <n> <bytes>` streams n chunks of <bytes> characters;
 * `context` answers with what the call context held; `data` returns a data, a raw and a url part.
 */
@AgentSkill({ id: 'probe', name: 'Probe', description: 'Behaviours for gRPC tests', tags: ['test'], default: true })
export class ProbeSkill extends A2aSkillHandler {
  async *handle(context: SkillContext): AsyncIterable<SkillEvent> {
    const [command, ...args] = context.text.split(' ');
    switch (command) {
      case 'echo':
        yield working();
        yield artifact(args.join(' '), { name: 'echo' });
        yield complete();
        return;
      case 'message':
        yield reply(args.join(' '));
        return;
      case 'slow':
        yield working();
        await sleep(Number(args[0]), undefined, { signal: context.signal }).catch(() => undefined);
        if (!context.signal.aborted) yield complete();
        return;
      case 'big': {
        const [count, size] = args.map(Number);
        const artifactId = randomUUID();
        yield working();
        for (let i = 0; i < count; i++) {
          yield artifact(`${i}:`.padEnd(size, 'x'), { artifactId, append: i > 0, lastChunk: i === count - 1 });
        }
        yield complete();
        return;
      }
      case 'context':
        yield artifact({
          data: { tenant: context.tenant, binding: context.call.binding, version: context.call.version, extensions: [...context.call.extensions], principal: context.principal.id },
        });
        yield complete();
        return;
      case 'data':
        yield artifact([
          { data: { ok: true, n: 42, list: [1, 'a', null, { deep: [] }], empty: {} }, mediaType: 'application/json' },
          { raw: Buffer.from('hello').toString('base64'), filename: 'hello.txt', mediaType: 'text/plain' },
          { url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
        ]);
        yield complete();
        return;
      default:
        yield complete(`unknown command ${command}`);
    }
  }
}

export interface GrpcProbeApp {
  app: INestApplication;
  /** `127.0.0.1:<port>` of the gRPC binding. */
  grpcAddress: string;
  /** Origin of the HTTP side (card, JSON-RPC, REST). */
  httpUrl: string;
}

/**
 * Boots a hybrid app serving the probe skill on every binding, the gRPC one through `connectA2aGrpc`. `setup` runs
 * before the microservice is connected (e.g. `app.useGlobalGuards`), as it would in a real `main.ts`.
 */
export async function startGrpcProbeApp(
  options: {
    grpc?: Partial<A2aGrpcOptions>;
    imports?: ModuleMetadata['imports'];
    providers?: ModuleMetadata['providers'];
    /** More A2aModule options, e.g. the module's own `guards`. */
    a2a?: Pick<A2aModuleExtras, 'guards' | 'interceptors' | 'filters'> & Pick<A2aModuleOptions, 'security' | 'extensions' | 'push' | 'limits'>;
    setup?: (app: INestApplication) => void;
    inheritAppConfig?: boolean;
  } = {},
): Promise<GrpcProbeApp> {
  const grpcAddress = `127.0.0.1:${await freePort()}`;
  const moduleRef = await Test.createTestingModule({ imports: [probeModule(grpcAddress, options)] }).compile();
  const app = createTestApplication(moduleRef);
  options.setup?.(app);
  connectA2aGrpc(app, { inheritAppConfig: options.inheritAppConfig ?? true });
  await app.startAllMicroservices();
  await app.listen(0, '127.0.0.1');
  const httpUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, grpcAddress, httpUrl };
}

function probeModule(
  grpcAddress: string,
  options: {
    grpc?: Partial<A2aGrpcOptions>;
    imports?: ModuleMetadata['imports'];
    providers?: ModuleMetadata['providers'];
    a2a?: Pick<A2aModuleExtras, 'guards' | 'interceptors' | 'filters'> & Pick<A2aModuleOptions, 'security' | 'extensions' | 'push' | 'limits'>;
  },
): DynamicModule {
  @Module({})
  class ProbeAppModule {}
  return {
    module: ProbeAppModule,
    imports: [
      A2aModule.forRoot({
        card: { name: 'Probe agent', description: 'gRPC test agent' },
        baseUrl: 'http://127.0.0.1',
        bindings: [grpcBinding({ url: grpcAddress, ...options.grpc })],
        ...options.a2a,
      }),
      ...(options.imports ?? []),
    ],
    providers: [ProbeSkill, ...(options.providers ?? [])],
  };
}
