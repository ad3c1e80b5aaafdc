import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT, namedDocSnippet } from '../../fixtures/docs/doc-snippets.js';
import { startTestApp } from '../../fixtures/test-app.js';

// The README's "A skill in 25 lines" as the README has it: its app.module.ts and main.ts blocks are written to a
// folder and run. Two changes only: `nestjs-a2a` is this repository's sources, and main.ts listens on a free port of
// 127.0.0.1 (not 3000) and exports its app so the test can close it. If this breaks, the README is wrong.
const LISTEN = 'await app.listen(3000);';

/** Writes the README's quick start into a folder of `dist/` (inside the repository, so its imports resolve). */
function writeReadmeExample(): string {
  mkdirSync(join(REPO_ROOT, 'dist'), { recursive: true });
  const dir = mkdtempSync(join(REPO_ROOT, 'dist', 'readme-example-'));
  const library = relative(dir, join(REPO_ROOT, 'libs/a2a/src/index.js'));
  const appModule = namedDocSnippet('README.md', 'app.module.ts').code;
  const main = namedDocSnippet('README.md', 'main.ts').code;
  if (!appModule.includes("from 'nestjs-a2a';")) throw new Error("README's app.module.ts no longer imports nestjs-a2a");
  if (!main.includes(LISTEN)) throw new Error(`README's main.ts no longer says ${LISTEN}`);
  writeFileSync(join(dir, 'app.module.ts'), appModule.replace("from 'nestjs-a2a';", `from '${library}';`));
  writeFileSync(join(dir, 'main.ts'), main.replace(LISTEN, "await app.listen(0, '127.0.0.1');\nexport { app };"));
  return dir;
}

describe('the README example', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    dir = writeReadmeExample();
    const { AppModule } = (await import(join(dir, 'app.module.ts'))) as { AppModule: unknown };
    ({ app, url } = await startTestApp(AppModule));
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("boots with the README's main.ts and answers the README curl call with a completed task", async () => {
    const main = (await import(join(dir, 'main.ts'))) as { app: INestApplication };
    try {
      const mainUrl = (await main.app.getUrl()).replace('[::1]', '127.0.0.1');
      const res = await fetch(`${mainUrl}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } }),
      });
      const body = (await res.json()) as {
        task: { status: { state: string }; artifacts: Array<{ name: string; parts: Array<{ text: string }> }> };
      };
      expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(body.task.artifacts[0]).toMatchObject({ name: 'shout', parts: [{ text: 'HELLO' }] });
    } finally {
      await main.app.close();
    }
  });

  it('takes its typed input as a data part, and refuses an invalid one with the field that is wrong', async () => {
    const send = async (data: unknown) => {
      const res = await fetch(`${url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          message: { messageId: `m-${JSON.stringify(data)}`, role: 'ROLE_USER', parts: [{ data }] },
        }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const ok = await send({ text: 'hi', times: 2 });
    expect(ok.body.task.artifacts[0].parts).toEqual([{ text: 'HI HI' }]);
    const refused = await send({ text: 'hi', times: 4 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[1].fieldViolations).toEqual([
      { field: 'times', description: 'times must not be greater than 3' },
    ]);
  });

  it('answers plain text on the same module served by the test adapter', async () => {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm3', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      }),
    });
    const body = (await res.json()) as { result: { task: { artifacts: Array<{ parts: Array<{ text: string }> }> } } };
    expect(body.result.task.artifacts[0].parts).toEqual([{ text: 'HELLO' }]);
  });
});
