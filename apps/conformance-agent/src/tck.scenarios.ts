import { randomUUID } from 'node:crypto';
import {
  artifact,
  complete,
  reject,
  reply,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';

/** What a scenario needs besides the message: how long a task held open for (re)subscription stays WORKING. */
export interface TckScenarioSettings {
  holdMs: number;
}

/** The events a scenario produces for a new task, in order; `wait` entries pause the run. */
export type TckStep = SkillEvent | { wait: 'hold' };

/**
 * The scenarios of the A2A TCK 1.0 feature files (`scenarios/core_operations.feature`, `scenarios/streaming.feature`),
 * keyed by the messageId prefix the kit sends them under. Sorted longest prefix first where they overlap
 * (`tck-artifact-file-url` before `tck-artifact-file`), so the most specific scenario wins, as in the kit's own agents.
 */
export const TCK_SCENARIOS: ReadonlyArray<{ prefix: string; steps: () => TckStep[] }> = [
  // core_operations.feature
  { prefix: 'tck-complete-task', steps: () => [complete('Hello from TCK')] },
  { prefix: 'tck-artifact-text', steps: () => [artifact('Generated text content'), complete()] },
  {
    prefix: 'tck-artifact-file-url',
    steps: () => [
      artifact([{ url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' }]),
      complete(),
    ],
  },
  { prefix: 'tck-artifact-file', steps: () => [fileArtifact(), complete()] },
  { prefix: 'tck-artifact-data', steps: () => [artifact({ data: { key: 'value', count: 42 } }), complete()] },
  { prefix: 'tck-message-response', steps: () => [reply('Direct message response')] },
  // The feature gives the state alone, no question.
  { prefix: 'tck-input-required', steps: () => [{ kind: 'status', state: 'TASK_STATE_INPUT_REQUIRED' }] },
  // "reject with error": the kit's agents raise an error, which their SDKs turn into a rejected task.
  { prefix: 'tck-reject-task', steps: () => [reject('rejected')] },
  // streaming.feature
  { prefix: 'tck-stream-001', steps: () => textLifecycle('Stream hello from TCK') },
  { prefix: 'tck-stream-002', steps: () => [complete()] },
  { prefix: 'tck-stream-003', steps: () => textLifecycle('Stream task lifecycle') },
  { prefix: 'tck-stream-ordering-001', steps: () => textLifecycle('Ordered output') },
  { prefix: 'tck-stream-artifact-text', steps: () => textLifecycle('Streamed text content') },
  { prefix: 'tck-stream-artifact-file', steps: () => [working(), fileArtifact(), complete()] },
  {
    prefix: 'tck-stream-artifact-chunked',
    steps: () => {
      const artifactId = randomUUID();
      return [
        working(),
        artifact('chunk-1 ', { artifactId }),
        artifact('chunk-2', { artifactId, append: true, lastChunk: true }),
        complete(),
      ];
    },
  },
  { prefix: 'test-resubscribe-message-id', steps: () => [working(), { wait: 'hold' }, complete()] },
];

/** The scenario the message's id asks for, if it starts with one of {@link TCK_SCENARIOS}' prefixes. */
export function tckScenarioOf(context: SkillContext): (() => TckStep[]) | undefined {
  const { messageId } = context.message;
  return TCK_SCENARIOS.find((scenario) => messageId.startsWith(scenario.prefix))?.steps;
}

/** Runs a scenario's steps; a canceled task stops at its pause rather than completing. */
export async function* runTckScenario(
  steps: TckStep[],
  settings: TckScenarioSettings,
  signal: AbortSignal,
  pause: (ms: number, signal: AbortSignal) => Promise<boolean>,
): AsyncIterable<SkillEvent> {
  for (const step of steps) {
    if ('wait' in step) {
      if (!(await pause(settings.holdMs, signal))) return;
    } else yield step;
  }
}

function textLifecycle(text: string): TckStep[] {
  return [working(), artifact(text), complete()];
}

/** The kit's file part: the bytes `tck` inline, named `output.txt`. */
function fileArtifact(): SkillEvent {
  return artifact([{ raw: Buffer.from('tck').toString('base64'), filename: 'output.txt', mediaType: 'text/plain' }]);
}
