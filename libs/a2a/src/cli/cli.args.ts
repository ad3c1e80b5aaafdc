import { parseArgs } from 'node:util';
import type { JsonValue, ProtocolBinding, TaskState } from '../protocol/a2a.types.js';
import { ALL_TASK_STATES } from '../task/task-states.js';
import { CliMessages } from './cli.messages.js';

/** The commands, each an A2A operation (`card` reads the public agent card). */
export const CLI_COMMANDS = ['card', 'send', 'stream', 'get', 'list', 'cancel', 'subscribe'] as const;

/** One of {@link CLI_COMMANDS}. */
export type CliCommandName = (typeof CLI_COMMANDS)[number];

/** A command line the CLI understood. */
export interface CliInvocation {
  readonly command: CliCommandName;
  /** The agent: its origin or its card's URL. */
  readonly url: string;
  /** `send` / `stream`: the message text (the remaining arguments, joined by spaces). */
  readonly text?: string;
  /** `get` / `cancel` / `subscribe`: the task. */
  readonly taskId?: string;
  /** `send` / `stream`: a data part. */
  readonly data?: JsonValue;
  readonly skill?: string;
  /** `send` / `stream`: the message's contextId; `list`: the filter. */
  readonly context?: string;
  /** `send` / `stream`: the task the message continues. */
  readonly task?: string;
  readonly state?: TaskState;
  readonly pageSize?: number;
  readonly pageToken?: string;
  readonly historyLength?: number;
  readonly binding?: ProtocolBinding;
  readonly apiKey?: string;
  readonly bearer?: string;
  readonly allowHosts: readonly string[];
  readonly allowOrigins: readonly string[];
  readonly json: boolean;
  readonly timeoutMs?: number;
}

/** What the command line asks for: help, or a command. */
export type CliRequest = { readonly help: true } | { readonly help: false; readonly invocation: CliInvocation };

/** A command line the CLI does not understand; the message says why. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  binding: { type: 'string' },
  'api-key': { type: 'string' },
  bearer: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'allow-origin': { type: 'string', multiple: true },
  timeout: { type: 'string' },
  data: { type: 'string' },
  skill: { type: 'string' },
  context: { type: 'string' },
  task: { type: 'string' },
  state: { type: 'string' },
  'page-size': { type: 'string' },
  'page-token': { type: 'string' },
  history: { type: 'string' },
} as const;

type Flag = keyof typeof OPTIONS;

const COMMON: readonly Flag[] = [
  'help',
  'json',
  'binding',
  'api-key',
  'bearer',
  'allow-host',
  'allow-origin',
  'timeout',
];
// The flags each command takes beyond the common ones: any other is a usage error, not silently ignored.
const COMMAND_FLAGS: Readonly<Record<CliCommandName, readonly Flag[]>> = {
  card: [],
  send: ['data', 'skill', 'context', 'task'],
  stream: ['data', 'skill', 'context', 'task'],
  get: ['history'],
  list: ['context', 'state', 'page-size', 'page-token', 'history'],
  cancel: [],
  subscribe: [],
};

const BINDINGS: Readonly<Record<string, ProtocolBinding>> = {
  jsonrpc: 'JSONRPC',
  rest: 'HTTP+JSON',
  'http+json': 'HTTP+JSON',
  grpc: 'GRPC',
};

/**
 * Reads the command line (without `node` and the script): `<command> <url> [arguments] [flags]`, flags anywhere.
 * @throws CliUsageError for anything it does not understand.
 */
export function parseCommandLine(argv: readonly string[]): CliRequest {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  const [command, url, ...rest] = positionals;
  if (command === undefined) throw new CliUsageError(CliMessages.noCommand());
  if (!(CLI_COMMANDS as readonly string[]).includes(command))
    throw new CliUsageError(CliMessages.unknownCommand(command));
  const name = command as CliCommandName;
  for (const flag of Object.keys(values) as Flag[]) {
    if (!COMMON.includes(flag) && !COMMAND_FLAGS[name].includes(flag))
      throw new CliUsageError(CliMessages.flagNotFor(flag, name));
  }
  if (url === undefined) throw new CliUsageError(CliMessages.missingUrl(name));
  checkUrl(url);

  const invocation: CliInvocation = {
    command: name,
    url,
    ...operands(name, rest),
    ...(values.data === undefined ? {} : { data: jsonOf(values.data) }),
    ...(values.skill === undefined ? {} : { skill: values.skill }),
    ...(values.context === undefined ? {} : { context: values.context }),
    ...(values.task === undefined ? {} : { task: values.task }),
    ...(values.state === undefined ? {} : { state: stateOf(values.state) }),
    ...(values['page-size'] === undefined ? {} : { pageSize: integerOf('page-size', values['page-size'], 1) }),
    ...(values['page-token'] === undefined ? {} : { pageToken: values['page-token'] }),
    ...(values.history === undefined ? {} : { historyLength: integerOf('history', values.history, 0) }),
    ...(values.binding === undefined ? {} : { binding: bindingOf(values.binding) }),
    ...(values['api-key'] === undefined ? {} : { apiKey: values['api-key'] }),
    ...(values.bearer === undefined ? {} : { bearer: values.bearer }),
    ...(values.timeout === undefined ? {} : { timeoutMs: timeoutOf(values.timeout) }),
    allowHosts: values['allow-host'] ?? [],
    allowOrigins: values['allow-origin'] ?? [],
    json: values.json ?? false,
  };
  if ((name === 'send' || name === 'stream') && invocation.text === undefined && invocation.data === undefined)
    throw new CliUsageError(CliMessages.missingText(name));
  return { help: false, invocation };
}

/** The arguments after the URL: the text of a message, a task id, or nothing. */
function operands(command: CliCommandName, rest: readonly string[]): { text?: string; taskId?: string } {
  switch (command) {
    case 'send':
    case 'stream':
      return rest.length === 0 ? {} : { text: rest.join(' ') };
    case 'get':
    case 'cancel':
    case 'subscribe': {
      const [taskId, ...extra] = rest;
      if (taskId === undefined || taskId === '') throw new CliUsageError(CliMessages.missingTaskId(command));
      if (extra.length > 0) throw new CliUsageError(CliMessages.extraArguments(command, extra));
      return { taskId };
    }
    default:
      if (rest.length > 0) throw new CliUsageError(CliMessages.extraArguments(command, rest));
      return {};
  }
}

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliUsageError(CliMessages.badUrl(url));
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CliUsageError(CliMessages.badUrl(url));
}

function jsonOf(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new CliUsageError(CliMessages.badData((error as Error).message));
  }
}

function bindingOf(value: string): ProtocolBinding {
  const binding = BINDINGS[value.toLowerCase()];
  if (binding === undefined) throw new CliUsageError(CliMessages.badBinding(value));
  return binding;
}

/** `completed`, `input-required`, `INPUT_REQUIRED` or `TASK_STATE_INPUT_REQUIRED`. */
function stateOf(value: string): TaskState {
  const name = value.toUpperCase().replace(/-/g, '_');
  const state = ALL_TASK_STATES.find((candidate) => candidate === name || candidate === `TASK_STATE_${name}`);
  if (state === undefined) throw new CliUsageError(CliMessages.badState(value));
  return state;
}

function integerOf(flag: string, value: string, min: number): number {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min) throw new CliUsageError(CliMessages.badInteger(flag, value, min));
  return number;
}

function timeoutOf(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0)
    throw new CliUsageError(CliMessages.badTimeout(value));
  return Math.round(seconds * 1000);
}
