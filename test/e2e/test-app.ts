import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';

/** Boots `module` as an HTTP app on 127.0.0.1 (a free port) and returns it with its base URL. */
export async function startTestApp(module: unknown): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({ imports: [module as never] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}
