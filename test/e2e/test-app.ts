import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { TestingModule } from '@nestjs/testing';
import { Test } from '@nestjs/testing';

/**
 * The HTTP adapter the suites run on: Express unless `A2A_TEST_HTTP_ADAPTER=fastify` (`npm test` runs the HTTP suites
 * once more that way, so the bindings are held to the same tests on both).
 */
export const TEST_HTTP_ADAPTER = process.env.A2A_TEST_HTTP_ADAPTER === 'fastify' ? 'fastify' : 'express';

/** `moduleRef.createNestApplication()` on the suites' adapter, without Nest's logger. */
export function createTestApplication(moduleRef: TestingModule): INestApplication {
  return TEST_HTTP_ADAPTER === 'fastify'
    ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
    : moduleRef.createNestApplication({ logger: false });
}

/** Boots `module` as an HTTP app on 127.0.0.1 (a free port) and returns it with its base URL. */
export async function startTestApp(module: unknown): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({ imports: [module as never] }).compile();
  const app = createTestApplication(moduleRef);
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}
