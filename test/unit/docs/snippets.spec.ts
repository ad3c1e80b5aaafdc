import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DOC_FILES,
  FRAGMENT_MARKER,
  REPO_ROOT,
  docSnippets,
  type DocSnippet,
} from '../../fixtures/docs/doc-snippets.js';
import { markdownCodeBlocks } from '../../fixtures/docs/markdown-code-blocks.js';
import { checkSnippetProject, writeSnippetProject } from '../../fixtures/docs/snippet-project.js';

// Every ```ts block of the README and the guides compiles against the library's sources, as a file of a reader's app:
// a block whose line above names a file (`src/app.module.ts`:) is written under that name, so the doc's other blocks
// import it; a relative import of a file the doc does not show gets an `any` stub (see snippet-project.ts). A block
// right below <!-- snippet: fragment --> is a deliberate fragment and is not compiled; keep those rare.
describe('the TypeScript blocks of the docs', () => {
  const snippets = DOC_FILES.flatMap((doc) => docSnippets(doc));
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'a2a-doc-snippets-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('type-check against the library', () => {
    const compiled = snippets.filter((snippet) => !snippet.fragment);
    expect(compiled.length).toBeGreaterThan(20);
    // A block with a mistake, checked in the same program: its error must come back, at its doc line.
    const probe: DocSnippet = {
      doc: 'probe.md',
      fenceLine: 10,
      file: 'probe/block-10.ts',
      code: "import { A2aModule } from 'nestjs-a2a';\n\nA2aModule.forRoot({ card: { name: 'No description' } });\n",
      fragment: false,
    };
    const problems = checkSnippetProject(writeSnippetProject(dir, [...compiled, probe]), [...compiled, probe]);
    const [probed, others] = [
      problems.filter((p) => p.at.startsWith('probe.md')),
      problems.filter((p) => !p.at.startsWith('probe.md')),
    ];
    expect(probed).toEqual([{ at: 'probe.md:13', message: expect.stringMatching(/^TS2741: .*'description'/) }]);
    expect(others.map(({ at, message }) => `${at}: ${message}`)).toEqual([]);
  }, 120_000);

  it('mark few blocks as fragments, and each marker sits right above a ts block', () => {
    const fragments = snippets.filter((snippet) => snippet.fragment);
    expect(fragments.length).toBeLessThanOrEqual(5);
    const markers = DOC_FILES.flatMap((doc) =>
      markdownCodeBlocks(readDoc(doc)).filter((block) => block.lineAbove === FRAGMENT_MARKER),
    );
    expect(markers.map((block) => block.lang)).toEqual(fragments.map(() => 'ts'));
  });
});

describe('markdownCodeBlocks', () => {
  it('reads fences, info strings, the line above and the fence line', () => {
    const text = ['# Title', '', '`main.ts`:', '', '```ts fragment', 'const a = 1;', '```', 'text', '~~~', 'x', '~~~'];
    expect(markdownCodeBlocks(text.join('\n'))).toEqual([
      { lang: 'ts', flags: ['fragment'], code: 'const a = 1;\n', fenceLine: 5, lineAbove: '`main.ts`:' },
      { lang: '', flags: [], code: 'x\n', fenceLine: 9, lineAbove: 'text' },
    ]);
  });

  it('keeps a shorter fence or another fence character inside a block, and strips a list item indentation', () => {
    const text = ['- item', '', '  ````md', '  ```ts', '  ~~~', '  ````'];
    expect(markdownCodeBlocks(text.join('\n'))).toEqual([
      { lang: 'md', flags: [], code: '```ts\n~~~\n', fenceLine: 3, lineAbove: '- item' },
    ]);
  });

  it('runs an unclosed block to the end of the text', () => {
    expect(markdownCodeBlocks('```ts\nlet a;\n\nlet b;')).toMatchObject([{ code: 'let a;\n\nlet b;\n' }]);
  });
});

function readDoc(doc: string): string {
  return readFileSync(join(REPO_ROOT, doc), 'utf8');
}
