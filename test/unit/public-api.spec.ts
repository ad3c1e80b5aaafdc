import { existsSync, readFileSync } from 'node:fs';
import {
  PUBLIC_API_FILE,
  publicExports,
  renderPublicApi,
  type EntryPoint,
  type PublicExport,
} from '../api/public-api.report.js';

/**
 * What users can import is recorded in `libs/a2a/api/public-api.txt`: a change to it must be deliberate and show in
 * review. And every name of the core and the store entry points says, where it is declared, what it is for.
 */

/** Entry points whose every export must have a doc comment at its declaration. */
const DOCUMENTED_ENTRIES = ['nestjs-a2a', 'nestjs-a2a/store'];

/** `entry point: kind name` per export, read back from the report's text. */
function exportLines(report: string): Set<string> {
  const lines = new Set<string>();
  let entry = '';
  for (const line of report.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    if (line.startsWith('  ')) lines.add(`${entry}: ${line.trim()}`);
    else entry = line;
  }
  return lines;
}

/** The exports added and removed between two reports, one per line. */
function apiDiff(recorded: string, current: string): string[] {
  const before = exportLines(recorded);
  const after = exportLines(current);
  return [
    ...[...before].filter((line) => !after.has(line)).map((line) => `- ${line}`),
    ...[...after].filter((line) => !before.has(line)).map((line) => `+ ${line}`),
  ];
}

describe('public API', () => {
  let api: Map<EntryPoint, PublicExport[]>;

  // Reading the library with the type checker takes seconds.
  beforeAll(() => {
    api = publicExports(process.cwd());
  }, 120_000);

  it(`matches ${PUBLIC_API_FILE}`, () => {
    const current = renderPublicApi(api);
    if (!existsSync(PUBLIC_API_FILE)) throw new Error(`${PUBLIC_API_FILE} is missing: run npm run api:update`);
    const recorded = readFileSync(PUBLIC_API_FILE, 'utf8');
    if (recorded === current) return;
    const diff = apiDiff(recorded, current);
    throw new Error(
      [
        `The public API differs from ${PUBLIC_API_FILE} (- recorded, + now):`,
        ...(diff.length > 0 ? diff : ['  (the same exports, laid out differently)']),
        `If the change is intended, run npm run api:update and commit ${PUBLIC_API_FILE}.`,
      ].join('\n'),
    );
  });

  it.each(DOCUMENTED_ENTRIES)('every export of %s has a doc comment at its declaration', (specifier) => {
    const [, exports] = [...api].find(([entry]) => entry.specifier === specifier) ?? [];
    expect(exports?.length).toBeGreaterThan(0);
    expect(
      exports!.filter((exported) => !exported.documented).map((exported) => `${exported.kind} ${exported.name}`),
    ).toEqual([]);
  });
});
