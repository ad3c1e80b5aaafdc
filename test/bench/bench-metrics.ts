import type { BenchPlan, Measurement } from './bench-plan.js';
import { BINDING_LABELS, type Binding } from './driver-protocol.js';

/** The keys under which measurements are recorded, and the table rows that show them. */

export type UnaryOp = 'send' | 'get';
export type UnaryMetric = 'rps' | 'p50' | 'p99' | 'cpu';
export type StreamMetric = 'ttfe' | 'eps' | 'cpu';

export const unaryKey = (op: UnaryOp, binding: Binding, concurrency: number, metric: UnaryMetric) =>
  `${op}.${binding}.c${concurrency}.${metric}`;
export const streamKey = (binding: Binding, chunks: number, metric: StreamMetric) =>
  `stream.${binding}.n${chunks}.${metric}`;
/** CPU per event at the largest chunk count over that at the smallest: 1 is perfectly flat in N. */
export const streamFlatnessKey = (binding: Binding) => `stream.${binding}.flat`;
export const burstKey = (binding: Binding, metric: 'ms' | 'cpu') => `burst.${binding}.${metric}`;
export const memoryKey = (metric: 'rss' | 'heap', tasks: number) => `memory.${metric}.${tasks}`;

/** A goal from the issue: our value over the SDK's, or our value itself, at most `max`. */
export type Target = { of: 'ours/sdk'; max: number; label: string } | { of: 'ours'; max: number; label: string };

export interface MetricRow {
  key: string;
  label: string;
  measurement: Measurement;
  /** The binding measured, for rows that have one. */
  binding?: Binding;
  target?: Target;
}

const OP_LABELS: Record<UnaryOp, string> = { send: 'SendMessage', get: 'GetTask' };
const UNARY_METRIC_LABELS: Record<UnaryMetric, string> = {
  rps: 'req/s',
  p50: 'p50 ms',
  p99: 'p99 ms',
  cpu: 'server CPU µs/req',
};
const STREAM_METRIC_LABELS: Record<StreamMetric, string> = {
  ttfe: 'first event ms (p50)',
  eps: 'events/s',
  cpu: 'server CPU µs/event',
};

const kb = (bytes: number) => `${Math.round((bytes / 1024) * 100) / 100} KB`;

export function metricRows(plan: BenchPlan): MetricRow[] {
  const rows: MetricRow[] = [];
  for (const op of ['send', 'get'] as const) {
    for (const binding of plan.bindings) {
      for (const concurrency of plan.concurrencies) {
        for (const metric of ['rps', 'p50', 'p99', 'cpu'] as const) {
          // The issue sets the unary goal for the two HTTP bindings.
          const targeted = metric === 'cpu' && concurrency >= 16 && binding !== 'grpc';
          rows.push({
            key: unaryKey(op, binding, concurrency, metric),
            measurement: op,
            binding,
            label: `${OP_LABELS[op]} ${BINDING_LABELS[binding]} c=${concurrency}: ${UNARY_METRIC_LABELS[metric]}`,
            ...(targeted && { target: { of: 'ours/sdk', max: 1 / 3, label: '÷ sdk ≤ 0.33' } }),
          });
        }
      }
    }
  }
  const smallest = Math.min(...plan.chunkCounts);
  const largest = Math.max(...plan.chunkCounts);
  for (const binding of plan.bindings) {
    for (const chunks of plan.chunkCounts) {
      for (const metric of ['ttfe', 'eps', 'cpu'] as const) {
        rows.push({
          key: streamKey(binding, chunks, metric),
          measurement: 'stream',
          binding,
          label: `SendStreamingMessage ${BINDING_LABELS[binding]} ${chunks} chunks: ${STREAM_METRIC_LABELS[metric]}`,
          ...(metric === 'cpu' && chunks === 100 && { target: { of: 'ours/sdk', max: 1 / 8, label: '÷ sdk ≤ 0.125' } }),
        });
      }
    }
    rows.push({
      key: streamFlatnessKey(binding),
      measurement: 'stream',
      binding,
      label: `SendStreamingMessage ${BINDING_LABELS[binding]}: CPU/event ${largest} chunks ÷ ${smallest} chunks`,
      target: { of: 'ours', max: 1.5, label: '≤ 1.5' },
    });
  }
  for (const binding of plan.bindings) {
    const { streams, chunks } = plan.burst;
    rows.push({
      key: burstKey(binding, 'ms'),
      measurement: 'burst',
      binding,
      label: `${streams} concurrent streams × ${chunks} chunks ${BINDING_LABELS[binding]}: ms until all done`,
      target: { of: 'ours/sdk', max: 1 / 5, label: 'ours/sdk ≤ 0.2' },
    });
    rows.push({
      key: burstKey(binding, 'cpu'),
      measurement: 'burst',
      binding,
      label: `${streams} concurrent streams × ${chunks} chunks ${BINDING_LABELS[binding]}: server CPU µs/event`,
    });
  }
  const most = Math.max(...plan.memoryCheckpoints);
  for (const tasks of plan.memoryCheckpoints) {
    rows.push({
      key: memoryKey('rss', tasks),
      measurement: 'memory',
      label: `RSS bytes per completed task at ${tasks} tasks`,
      ...(tasks === most && { target: { of: 'ours', max: 1536, label: `≤ 1536 (${kb(1536)})` } }),
    });
    rows.push({
      key: memoryKey('heap', tasks),
      measurement: 'memory',
      label: `heap-after-GC bytes per completed task at ${tasks} tasks`,
    });
  }
  return rows.filter((row) => plan.measurements.includes(row.measurement));
}
