/**
 * Our server as a typical production app runs it: the conformance agent plus one global guard (an API-key header
 * check, on HTTP and gRPC), one global pass-through interceptor and `app.enableCors()`. Same environment as
 * our-server.ts; the bench's clients send the key with every request. Imported by URL, like our-server.ts.
 */
import './memory-probe.js';
import type { CallHandler, CanActivate, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';

export const BENCH_KEY_HEADER = 'x-bench-key';
export const BENCH_KEY = 'bench';

const built = (path: string) => new URL(`../../${path}`, import.meta.url).href;
const [{ NestFactory }, { UnauthorizedException }, { ConformanceModule }, { connectA2aGrpc }] = await Promise.all([
  import('@nestjs/core'),
  import('@nestjs/common'),
  import(built('apps/conformance-agent/src/conformance.module.js')),
  import(built('libs/a2a/src/grpc.js')),
]);

class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const key =
      context.getType() === 'rpc'
        ? context.switchToRpc().getContext<{ get(key: string): unknown[] }>().get(BENCH_KEY_HEADER)[0]
        : context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers[BENCH_KEY_HEADER];
    if (key !== BENCH_KEY) throw new UnauthorizedException();
    return true;
  }
}

class PassThroughInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

const port = Number(process.env.PORT);
const grpcPort = Number(process.env.GRPC_PORT);
const baseUrl = process.env.A2A_BASE_URL!;
const app = await NestFactory.create(ConformanceModule.forRoot({ baseUrl, grpc: { url: `127.0.0.1:${grpcPort}` } }), {
  logger: ['error', 'warn'],
});
app.useGlobalGuards(new ApiKeyGuard());
app.useGlobalInterceptors(new PassThroughInterceptor());
app.enableCors();
connectA2aGrpc(app);
await app.startAllMicroservices();
await app.listen(port, '127.0.0.1');
