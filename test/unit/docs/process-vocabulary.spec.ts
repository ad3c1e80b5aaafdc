import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { DOC_FILES, REPO_ROOT } from '../../fixtures/docs/doc-snippets.js';

// The docs and the library's comments speak of the product (its versions, the spec's sections), never of how the work
// on it was organised: work items, requirement ids, who did it, or a checklist that is not in the repository.
const PROCESS_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bstop \d+/i, 'a work stop'],
  [/\bissue #?\d+/i, 'an issue number'],
  [/\bthe issue\b/i, 'the issue'],
  [/\bR\d+\b/, 'a requirement id'],
  [/\bhelpers?\b/i, 'helper'],
  [/\bsessions?\b/i, 'session'],
  [/\bCHECKLIST(\.md)?\b/i, 'the checklist'],
  [/\bTODO later\b/i, 'TODO later'],
];

/** Every `.ts` file under `dir`, relative to the repository, without build output. */
function typeScriptFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(join(REPO_ROOT, path)).isDirectory()) return typeScriptFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The text of a TypeScript file with everything but its comments blanked, so that line numbers stay. */
function commentsOnly(text: string): string {
  const sourceFile = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, false);
  const ranges = new Map<number, number>();
  const visit = (node: ts.Node): void => {
    for (const range of [
      ...(ts.getLeadingCommentRanges(text, node.pos) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.end) ?? []),
    ])
      ranges.set(range.pos, range.end);
    node.getChildren(sourceFile).forEach(visit);
  };
  visit(sourceFile);
  const kept = text.replace(/[^\n]/g, ' ').split('');
  for (const [pos, end] of ranges) for (let i = pos; i < end; i++) kept[i] = text[i];
  return kept.join('');
}

/** `file:line: what — the line`, for each line of `text` that uses process vocabulary. */
function findings(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      PROCESS_WORDS.filter(([pattern]) => pattern.test(line)).map(
        ([, what]) => `${file}:${i + 1}: ${what} — ${line.trim()}`,
      ),
    );
}

describe('process vocabulary', () => {
  it('is absent from the README and the guides', () => {
    const docs = [...DOC_FILES, ...(existsSync(join(REPO_ROOT, 'libs/a2a/README.md')) ? ['libs/a2a/README.md'] : [])];
    expect(docs.flatMap((doc) => findings(doc, readFileSync(join(REPO_ROOT, doc), 'utf8')))).toEqual([]);
  });

  it("is absent from the comments of the library's sources and tests", () => {
    const files = typeScriptFiles('libs');
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => findings(file, commentsOnly(readFileSync(join(REPO_ROOT, file), 'utf8'))))).toEqual(
      [],
    );
  });

  it('is found in a comment, and not in code or strings', () => {
    const text = [
      "const session = 'helper'; // fine: R2 is not here",
      '/** As R14 asks. */',
      'export const x = `stop 3`;',
      '// after stop 3',
    ].join('\n');
    expect(findings('x.ts', commentsOnly(text))).toEqual([
      'x.ts:1: a requirement id — // fine: R2 is not here',
      'x.ts:2: a requirement id — /** As R14 asks. */',
      'x.ts:4: a work stop — // after stop 3',
    ]);
  });
});
