import { A2aClientError } from '../client/a2a-client.errors.js';
import type { TaskState } from '../protocol/a2a.types.js';

/**
 * The CLI's exit codes: what a script branches on. A task's final state decides for `send`, `stream` and `subscribe`;
 * errors decide for every command. The table is printed by `--help` and documented in docs/cli.md.
 */
export const CliExitCode = {
  /** The task completed (or the agent answered with a message); any other command succeeded. */
  Completed: 0,
  /** A fault of the CLI itself. */
  Internal: 1,
  /** The command line is wrong. */
  Usage: 2,
  /** The task ended TASK_STATE_FAILED. */
  Failed: 3,
  /** The task ended TASK_STATE_CANCELED. */
  Canceled: 4,
  /** The task ended TASK_STATE_REJECTED. */
  Rejected: 5,
  /** The task waits for input (TASK_STATE_INPUT_REQUIRED) and there is no terminal to ask on. */
  InputRequired: 6,
  /** The task waits for authentication (TASK_STATE_AUTH_REQUIRED), or the agent refused the credentials. */
  AuthRequired: 7,
  /** The agent could not be reached or did not answer in A2A (network, timeout, card, address refused). */
  Network: 8,
  /** The agent answered with an A2A error (TaskNotFound, InvalidParams, …). */
  AgentError: 9,
  /** The stream ended before the task reached a final or interrupted state. */
  NotFinished: 10,
  /** Interrupted with Ctrl-C (128 + SIGINT). */
  Interrupted: 130,
} as const;

/** One of {@link CliExitCode}'s values. */
export type CliExitCodeValue = (typeof CliExitCode)[keyof typeof CliExitCode];

/** The exit code of a task that stopped in `state`: the end of `send`, `stream` or `subscribe`. */
export function exitCodeOfState(state: TaskState): CliExitCodeValue {
  switch (state) {
    case 'TASK_STATE_COMPLETED':
      return CliExitCode.Completed;
    case 'TASK_STATE_FAILED':
      return CliExitCode.Failed;
    case 'TASK_STATE_CANCELED':
      return CliExitCode.Canceled;
    case 'TASK_STATE_REJECTED':
      return CliExitCode.Rejected;
    case 'TASK_STATE_INPUT_REQUIRED':
      return CliExitCode.InputRequired;
    case 'TASK_STATE_AUTH_REQUIRED':
      return CliExitCode.AuthRequired;
    default:
      return CliExitCode.NotFinished;
  }
}

const AUTH_KINDS: ReadonlySet<string> = new Set([
  'Unauthenticated',
  'PermissionDenied',
  'Credentials',
  'CredentialsRefused',
]);
const REACH_KINDS: ReadonlySet<string> = new Set([
  'Network',
  'Timeout',
  'AddressRefused',
  'InvalidResponse',
  'CardUnavailable',
  'InvalidCard',
  'CardVerificationFailed',
  'NoCompatibleInterface',
  'TransportUnavailable',
]);

/** The exit code of an error a command ended with. */
export function exitCodeOfError(error: unknown): CliExitCodeValue {
  if (!(error instanceof A2aClientError)) return CliExitCode.Internal;
  if (error.kind === 'Aborted') return CliExitCode.Interrupted;
  if (AUTH_KINDS.has(error.kind)) return CliExitCode.AuthRequired;
  if (REACH_KINDS.has(error.kind)) return CliExitCode.Network;
  return CliExitCode.AgentError;
}
