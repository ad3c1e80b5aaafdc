/**
 * Our server on `@nestjs/platform-fastify`: the conformance agent as our-server.ts runs it, on Fastify instead of
 * Express (no guard, interceptor or CORS). Same environment as our-server.ts; imported by URL, like it.
 */
import './memory-probe.js';

const built = (path: string) => new URL(`../../${path}`, import.meta.url).href;
const [{ NestFactory }, { FastifyAdapter }, { ConformanceModule }, { connectA2aGrpc }] = await Promise.all([
  import('@nestjs/core'),
  import('@nestjs/platform-fastify'),
  import(built('apps/conformance-agent/src/conformance.module.js')),
  import(built('libs/a2a/src/grpc.js')),
]);

const port = Number(process.env.PORT);
const grpcPort = Number(process.env.GRPC_PORT);
const baseUrl = process.env.A2A_BASE_URL!;
const app = await NestFactory.create(
  ConformanceModule.forRoot({ baseUrl, grpc: { url: `127.0.0.1:${grpcPort}` } }),
  new FastifyAdapter(),
  {
    logger: ['error', 'warn'],
  },
);
connectA2aGrpc(app);
await app.startAllMicroservices();
await app.listen(port, '127.0.0.1');
