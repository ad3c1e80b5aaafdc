import type { MetricRow } from './bench-metrics.js';
import { OUR_SERVERS, SERVER_LAYOUTS, type ServerName } from './server-layouts.js';
import { median } from './stats.js';

/** A measured value, or why a round has none. */
export type Sample = number | { failed: string };

/** Every round's sample of every measurement, per server; rendered as one markdown table of medians. */
export class BenchResults {
  private readonly samples = new Map<string, Map<ServerName, Sample[]>>();

  record(key: string, server: ServerName, sample: Sample): void {
    let byServer = this.samples.get(key);
    if (!byServer) this.samples.set(key, (byServer = new Map()));
    let list = byServer.get(server);
    if (!list) byServer.set(server, (list = []));
    list.push(sample);
  }

  fail(keys: readonly string[], server: ServerName, reason: string): void {
    for (const key of keys) this.record(key, server, { failed: reason });
  }

  /** The median of the rounds that produced a value; undefined when none did. */
  value(key: string, server: ServerName): number | undefined {
    const numbers = (this.samples.get(key)?.get(server) ?? []).filter((s): s is number => typeof s === 'number');
    return numbers.length > 0 ? median(numbers) : undefined;
  }

  /** The markdown table: a column per server, ratio columns, the target; n/a cells point to a numbered reason. */
  toMarkdown(rows: readonly MetricRow[], servers: readonly ServerName[]): string {
    const notes = new Map<string, number>();
    const note = (reason: string) => {
      if (!notes.has(reason)) notes.set(reason, notes.size + 1);
      return `[${notes.get(reason)}]`;
    };
    const has = (name: ServerName) => servers.includes(name);
    const ourServers = OUR_SERVERS.filter(has);
    const ratioColumns = ourServers.flatMap((ours) =>
      (['sdk', 'floor'] as const).filter(has).map((other) => [ours, other] as const),
    );

    const header = [
      'measurement',
      ...servers.map((s) => SERVER_LAYOUTS[s].label),
      ...ratioColumns.map(([ours, other]) => `${SERVER_LAYOUTS[ours].label}/${other}`),
      'target',
    ];
    const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`];
    for (const row of rows) {
      const cells = servers.map((server) => {
        const samples = this.samples.get(row.key)?.get(server) ?? [];
        const failures = samples.filter((s): s is { failed: string } => typeof s !== 'number');
        const value = this.value(row.key, server);
        if (value === undefined) return failures.length > 0 ? `n/a ${note(failures[0].failed)}` : '—';
        if (failures.length === 0) return formatNumber(value);
        return `${formatNumber(value)} ${note(`failed in ${failures.length} of ${samples.length} rounds: ${failures[0].failed}`)}`;
      });
      const ratios = ratioColumns.map(([ours, other]) => {
        const mine = this.value(row.key, ours);
        const theirs = this.value(row.key, other);
        return mine !== undefined && theirs !== undefined && theirs > 0 ? (mine / theirs).toFixed(2) : '—';
      });
      const targets = ourServers.map((ours) => this.targetCell(row, ours)).filter(Boolean);
      lines.push(`| ${[row.label, ...cells, ...ratios, targets.join('; ')].join(' | ')} |`);
    }
    const footnotes = [...notes].map(([reason, n]) => `[${n}] ${reason.replace(/\|/g, '\\|').replace(/\s+/g, ' ')}`);
    return [...lines, ...(footnotes.length > 0 ? ['', ...footnotes] : [])].join('\n');
  }

  /** The row's target for one of our servers: `ours ≤ 0.33 ✓`. */
  private targetCell(row: MetricRow, server: ServerName): string {
    if (!row.target) return '';
    const { of, max, label } = row.target;
    const ours = this.value(row.key, server);
    let actual = ours;
    if (of === 'ours/sdk') {
      const sdk = this.value(row.key, 'sdk');
      actual = ours !== undefined && sdk !== undefined && sdk > 0 ? ours / sdk : undefined;
    }
    const name = SERVER_LAYOUTS[server].label;
    if (actual === undefined) return `${name}: ${label} ?`;
    return `${name}: ${label} ${actual <= max ? '✓' : '✗'}`;
  }
}

function formatNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toString();
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}
