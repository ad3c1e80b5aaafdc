import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/**
 * The library's sources form layers: a file may import at run time from its own layer and the ones below, never from
 * one above (type-only imports are erased from the JavaScript and do not count). So a store implementer reads the
 * task model without the engine, the engine runs without the HTTP bindings, and the v1.0 bindings without the
 * compatibility layer that plugs into them. No two files import each other, even through types: a cycle is one unit
 * in two files.
 *
 * Each top-level folder has a layer, and so has each file at the root (the module's constants sit at the bottom, its
 * assembly and entry points at the top). A folder or root file missing from the table fails the test: give it a layer.
 */
const SRC = join(process.cwd(), 'libs/a2a/src');

const LAYERS: Readonly<Record<string, number>> = {
  // The model: task states, JSON, the protocol's types and validators, the error types, the module's constants.
  task: 0,
  json: 0,
  protocol: 0,
  errors: 0,
  'a2a.constants.ts': 0,
  'a2a.messages.ts': 0,
  'a2a-module.options.ts': 0,
  'a2a-module-definition.ts': 0,
  'a2a-options.rules.ts': 0,
  'binding-mounts.ts': 0,
  'optional-packages.ts': 0,
  // The call: who is calling, and what.
  context: 1,
  health: 1,
  // Policies and storage.
  security: 2,
  skills: 2,
  extensions: 2,
  store: 2,
  bus: 2,
  // Services over them.
  push: 3,
  observability: 3,
  audit: 3,
  card: 3,
  postgres: 3,
  redis: 3,
  terminus: 3,
  'push-receiver': 3,
  engine: 4,
  // The protocol bindings over the engine.
  bindings: 5,
  // What plugs into the bindings or calls them.
  compat: 6,
  client: 6,
  testing: 6,
  inspector: 6,
  // The module's assembly and the package's entry points.
  'a2a.module.ts': 7,
  'a2a-options.check.ts': 7,
  'a2a-options.schema.ts': 7,
  'index.ts': 7,
  'client.ts': 7,
  'grpc.ts': 7,
  'postgres.ts': 7,
  'push-receiver.ts': 7,
  'redis.ts': 7,
  'store.ts': 7,
  'terminus.ts': 7,
  'testing.ts': 7,
  cli: 7,
};

interface Import {
  readonly target: string;
  readonly typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The relative imports and re-exports of `file` (paths relative to SRC), each marked type-only or not. */
function importsOf(file: string): Import[] {
  const source = readFileSync(file, 'utf8');
  const statements = source.match(/^(?:import|export)\s[^;]*?from\s+'\.[^']*';|^import\s+'\.[^']*';/gms) ?? [];
  return statements.map((statement) => {
    const specifier = /'(\.[^']*)'/.exec(statement)![1];
    const target = relative(SRC, normalize(join(dirname(file), specifier.replace(/\.js$/, '.ts'))));
    return { target, typeOnly: isTypeOnly(statement) };
  });
}

/** `import type …`, `export type …`, or `import { type A, type B } from …`: erased from the JavaScript. */
function isTypeOnly(statement: string): boolean {
  if (/^(?:import|export)\s+type\s/.test(statement)) return true;
  const names = /^import\s*\{([^}]*)\}\s*from/s.exec(statement)?.[1];
  if (names === undefined) return false;
  const list = names
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return list.length > 0 && list.every((name) => name.startsWith('type '));
}

/** The table's key of a file: its top-level folder, or its own name at the root. */
const unitOf = (file: string) => file.split('/')[0];

describe('source layers of libs/a2a/src', () => {
  const files = sourceFiles(SRC).map((file) => relative(SRC, file));
  const graph = new Map(files.map((file) => [file, importsOf(join(SRC, file))]));

  it('finds the sources it checks', () => {
    expect(files.filter((file) => unitOf(file) === 'task').length).toBeGreaterThanOrEqual(5);
    expect(graph.get('a2a.module.ts')!.length).toBeGreaterThan(10);
  });

  it('has a layer for every top-level folder and root file', () => {
    const missing = [...new Set(files.map(unitOf))].filter((unit) => LAYERS[unit] === undefined);
    expect(
      missing.map(
        (unit) => `${unit}: not in the LAYERS table of test/unit/module/source-layers.spec.ts; give it a layer`,
      ),
    ).toEqual([]);
  });

  it('imports at run time only from its own layer or a lower one', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter(({ target, typeOnly }) => !typeOnly && LAYERS[unitOf(target)] > LAYERS[unitOf(file)])
        .map(({ target }) => `${file} (layer ${LAYERS[unitOf(file)]}) -> ${target} (layer ${LAYERS[unitOf(target)]})`),
    );
    expect(upward).toEqual([]);
  });

  it('imports only files that exist', () => {
    const dangling = [...graph].flatMap(([file, imports]) =>
      imports.filter(({ target }) => !graph.has(target)).map(({ target }) => `${file} -> ${target}`),
    );
    expect(dangling).toEqual([]);
  });

  it('keeps the v1.0 bindings free of the compatibility layer, types included: it plugs into them', () => {
    const intoCompat = [...graph]
      .filter(([file]) => unitOf(file) === 'bindings')
      .flatMap(([file, imports]) =>
        imports.filter(({ target }) => unitOf(target) === 'compat').map(({ target }) => `${file} -> ${target}`),
      );
    expect(intoCompat).toEqual([]);
  });

  it('has no import cycle between files, type-only imports included', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });
});

/** One cycle (as `a -> b -> a`) per file that starts one, found by depth-first search. */
function cyclesOf(graph: ReadonlyMap<string, readonly Import[]>): string[] {
  const done = new Set<string>();
  const path: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string): void => {
    const at = path.indexOf(file);
    if (at >= 0) {
      cycles.push([...path.slice(at), file].join(' -> '));
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const { target } of graph.get(file) ?? []) visit(target);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return cycles;
}
