import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a V8 `.cpuprofile` (as `--cpu-prof` writes it) that self time needs. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

/** Who a frame belongs to: a package, a slice of Node core, our library, V8 itself. */
function areaOf(functionName: string, url: string): string {
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'V8 / native (program)';
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url.replace(/^(node:(?:internal\/)?[^/]+).*$/, '$1');
  if (url.includes('/dist/libs/')) return 'our library (libs/a2a)';
  if (url.includes('/dist/apps/')) return 'conformance agent';
  if (url.includes('/dist/test/bench/')) return 'bench probe';
  return url === '' ? 'native: socket writes, JSON, V8 builtins' : url;
}

function shortUrl(url: string): string {
  return url
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/dist\//, '')
    .replace(/^file:\/\//, '');
}

/**
 * Self time of every `.cpuprofile` in `dir`, merged: a markdown table by area and one of the hottest functions. Idle
 * time is left out, so percentages are of the time the server was busy.
 */
export function summarizeCpuProfiles(dir: string, top = 20): string {
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busyUs = 0;
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  for (const file of files) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
    profile.samples.forEach((nodeId, i) => {
      const frame = frames.get(nodeId);
      const us = profile.timeDeltas[i] ?? 0;
      if (!frame || frame.functionName === '(idle)' || us <= 0) return;
      busyUs += us;
      const area = areaOf(frame.functionName, frame.url);
      byArea.set(area, (byArea.get(area) ?? 0) + us);
      const name =
        `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`.trim();
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    });
  }
  if (busyUs === 0) return `No CPU profile samples in ${dir}.`;
  const table = (title: string, entries: Map<string, number>, limit: number) => {
    const rows = [...entries].sort((a, b) => b[1] - a[1]).slice(0, limit);
    return [
      `| ${title} | self ms | % of busy |`,
      '| --- | ---: | ---: |',
      ...rows.map(
        ([name, us]) =>
          `| ${name.replace(/\|/g, '\\|')} | ${Math.round(us / 1000)} | ${((100 * us) / busyUs).toFixed(1)} |`,
      ),
    ].join('\n');
  };
  return [
    `${files.length} profile(s), ${Math.round(busyUs / 1000)} ms busy.`,
    '',
    table('area', byArea, 15),
    '',
    table('function', byFunction, top),
  ].join('\n');
}
