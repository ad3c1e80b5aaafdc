import { Inject } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  fail,
  reject,
  reply,
  requireAuth,
  requireInput,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { CONFORMANCE_OPTIONS, DEFAULT_SUBSCRIBE_HOLD_MS, type ConformanceOptions } from './conformance.options.js';
import { runTckScenario, tckScenarioOf } from './tck.scenarios.js';

/** messageId prefix with which conformance kits ask for a task that stays open long enough to subscribe to. */
const HOLD_MESSAGE_ID_PREFIX = 'test-subscribe-message-id';

// Bounds on the numeric arguments, so one message cannot tie the agent up for long or flood a stream.
const MAX_CHUNKS = 1000;
const MAX_SLOW_MS = 10 * 60 * 1000;
const DEFAULT_CHUNKS = 3;
const DEFAULT_SLOW_MS = 1000;

/**
 * The deterministic behaviours of `CONFORMANCE-AGENT.md`, keyed on the first word of the message's first text part,
 * so that every task state, artifact shape and stream pattern of the protocol can be produced on demand.
 */
@AgentSkill({
  id: 'conformance',
  name: 'Conformance',
  description:
    'Deterministic behaviours for protocol tests: echo <text>, message <text>, stream <n>, slow <ms>, ask, auth, fail, reject, data; anything else opens a task that stays WORKING.',
  tags: ['test', 'conformance'],
  examples: ['echo hello', 'stream 5', 'slow 2000', 'ask', 'data'],
  inputModes: ['text/plain'],
  outputModes: ['text/plain', 'application/json', 'application/pdf'],
})
export class ConformanceSkill extends A2aSkillHandler {
  constructor(@Inject(CONFORMANCE_OPTIONS) private readonly options: ConformanceOptions) {
    super();
  }

  handle(context: SkillContext): AsyncIterable<SkillEvent> {
    const holdMs = this.options.subscribeHoldMs ?? DEFAULT_SUBSCRIBE_HOLD_MS;
    // The A2A TCK's scenarios are keyed on the messageId, whatever the text says, on a new task as on a follow-up
    // (the kit moves a task on with `tck-input-required` and `tck-complete-task` messages).
    const scenario = tckScenarioOf(context);
    if (scenario) return runTckScenario(scenario(), { holdMs }, context.signal, pause);
    if (context.task) return this.followUp(context);
    if (context.message.messageId.startsWith(HOLD_MESSAGE_ID_PREFIX)) return slow(holdMs, context.signal);
    const { command, argument } = parse(context);
    switch (command) {
      case 'echo':
        return events(working(), artifact(argument, { name: 'echo' }), complete());
      case 'message':
        return events(reply(argument));
      case 'stream':
        return stream(positiveInt(argument, DEFAULT_CHUNKS, MAX_CHUNKS));
      case 'slow':
        return slow(positiveInt(argument, DEFAULT_SLOW_MS, MAX_SLOW_MS), context.signal);
      case 'ask':
        return events(requireInput('What is your answer?'));
      case 'auth':
        return events(requireAuth('Please authenticate, then send any message on this task to continue.'));
      case 'fail':
        return events(working(), fail('Failed on purpose: the message asked for it.'));
      case 'reject':
        return events(reject('Rejected on purpose: the message asked for it.'));
      case 'data':
        return events(working(), dataArtifact(), complete());
      default:
        return events(working(), artifact(`You said: ${context.text}`, { name: 'response' }));
    }
  }

  /** A message on an existing task: it answers the question, supplies the credentials, or continues the open task. */
  private followUp(context: SkillContext): AsyncIterable<SkillEvent> {
    switch (context.task!.status.state) {
      case 'TASK_STATE_INPUT_REQUIRED':
        return events(working(), artifact(`answer: ${context.text}`, { name: 'answer' }), complete());
      case 'TASK_STATE_AUTH_REQUIRED':
        return events(working(), complete('Authenticated.'));
      default:
        // Without a terminal state the task stays WORKING, open to more messages, subscriptions and cancellation.
        return events(artifact(`You said: ${context.text}`, { name: 'response' }));
    }
  }
}

async function* events(...list: SkillEvent[]): AsyncIterable<SkillEvent> {
  yield* list;
}

async function* stream(chunks: number): AsyncIterable<SkillEvent> {
  const artifactId = randomUUID();
  yield working();
  for (let i = 1; i <= chunks; i++) {
    yield artifact(`chunk ${i}`, { artifactId, name: 'stream', append: i > 1, lastChunk: i === chunks });
  }
  yield complete();
}

async function* slow(ms: number, signal: AbortSignal): AsyncIterable<SkillEvent> {
  yield working();
  if (!(await pause(ms, signal))) return;
  yield complete();
}

/** Waits `ms`; false when the task was canceled meanwhile, so the skill stops instead of finishing. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch (error) {
    if (signal.aborted) return false;
    throw error;
  }
}

function dataArtifact(): SkillEvent {
  return artifact(
    [
      { data: { ok: true, n: 42 }, mediaType: 'application/json' },
      { raw: Buffer.from('hello').toString('base64'), mediaType: 'text/plain', filename: 'hello.txt' },
      { url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
    ],
    { name: 'data' },
  );
}

/** The first word of the first text part (case-insensitive) and the rest of that part, verbatim. */
function parse(context: SkillContext): { command: string; argument: string } {
  const text = context.message.parts.find((p) => p.text !== undefined)?.text ?? '';
  const match = /^\s*(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  return { command: match?.[1].toLowerCase() ?? '', argument: match?.[2] ?? '' };
}

function positiveInt(argument: string, fallback: number, max: number): number {
  const n = Number.parseInt(argument, 10);
  return Number.isInteger(n) && n > 0 ? Math.min(n, max) : fallback;
}
