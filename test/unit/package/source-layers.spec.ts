import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/**
 * The library's ground floor: the task model (`task/`), JSON utilities (`json/`) and the protocol's types
 * (`protocol/`) are what every other folder builds on, and the stores sit right above them. None of these may import,
 * at run time, the engine or the card (type-only imports are erased and do not count): a store implementer or a
 * reader of the task model should not have to load, or read, the engine.
 */
const SRC = join(process.cwd(), 'libs/a2a/src');

const GROUND_FLOOR: Record<string, readonly string[]> = {
  task: ['task', 'protocol'],
  json: ['json'],
  protocol: ['protocol', 'task', 'json', 'errors'],
};
const BELOW_THE_ENGINE = ['task', 'json', 'protocol', 'store', 'postgres', 'observability', 'skills'];
const UPSTAIRS = ['engine', 'card'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Top-level folders (relative to libs/a2a/src) that `file` imports at run time. */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const statements = source.match(/^(?:import|export)\s[^;]*?from\s+'\.[^']+';/gms) ?? [];
  return statements
    .filter((statement) => !/^(?:import|export)\s+type\s/.test(statement) && !/^import\s*\{(?:\s*type\s+[^,}]+,?)+\s*\}/.test(statement))
    .map((statement) => /from\s+'(\.[^']+)'/.exec(statement)![1])
    .map((specifier) => relative(SRC, normalize(join(dirname(file), specifier))).split('/')[0]);
}

const folderOf = (file: string) => relative(SRC, file).split('/')[0];

describe('source layers of libs/a2a/src', () => {
  const files = sourceFiles(SRC);

  it('finds the sources it checks', () => {
    expect(files.filter((file) => folderOf(file) === 'task').length).toBeGreaterThanOrEqual(5);
  });

  it.each(Object.entries(GROUND_FLOOR))('%s/ imports at run time only from %j', (folder, allowed) => {
    const strays = files
      .filter((file) => folderOf(file) === folder)
      .flatMap((file) => runtimeImports(file).filter((target) => !allowed.includes(target)).map((target) => `${relative(SRC, file)} -> ${target}/`));
    expect(strays).toEqual([]);
  });

  it.each(BELOW_THE_ENGINE)('%s/ does not import the engine or the card at run time', (folder) => {
    const upward = files
      .filter((file) => folderOf(file) === folder)
      .flatMap((file) => runtimeImports(file).filter((target) => UPSTAIRS.includes(target)).map((target) => `${relative(SRC, file)} -> ${target}/`));
    expect(upward).toEqual([]);
  });
});
