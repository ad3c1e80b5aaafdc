import {
  A2aAddressRefusedError,
  A2aCardError,
  A2aCredentialsRefusedError,
  A2aProtocolError,
  A2aTransportError,
} from '../../../libs/a2a/src/client.js';
import { CliExitCode, exitCodeOfError, exitCodeOfState } from '../../../libs/a2a/src/cli/cli.exit-codes.js';

describe('CLI exit codes', () => {
  it('are distinct', () => {
    const codes = Object.values(CliExitCode);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it.each([
    ['TASK_STATE_COMPLETED', CliExitCode.Completed],
    ['TASK_STATE_FAILED', CliExitCode.Failed],
    ['TASK_STATE_CANCELED', CliExitCode.Canceled],
    ['TASK_STATE_REJECTED', CliExitCode.Rejected],
    ['TASK_STATE_INPUT_REQUIRED', CliExitCode.InputRequired],
    ['TASK_STATE_AUTH_REQUIRED', CliExitCode.AuthRequired],
    ['TASK_STATE_WORKING', CliExitCode.NotFinished],
    ['TASK_STATE_SUBMITTED', CliExitCode.NotFinished],
  ] as const)('a task that stopped %s exits %i', (state, code) => {
    expect(exitCodeOfState(state)).toBe(code);
  });

  it('follow the kind of error', () => {
    expect(exitCodeOfError(new A2aProtocolError('TaskNotFound', 'no such task', {}))).toBe(CliExitCode.AgentError);
    expect(exitCodeOfError(new A2aProtocolError('InvalidParams', 'bad', {}))).toBe(CliExitCode.AgentError);
    expect(exitCodeOfError(new A2aProtocolError('Unauthenticated', 'who are you', {}))).toBe(CliExitCode.AuthRequired);
    expect(exitCodeOfError(new A2aProtocolError('PermissionDenied', 'no', {}))).toBe(CliExitCode.AuthRequired);
    expect(exitCodeOfError(new A2aCredentialsRefusedError('not there'))).toBe(CliExitCode.AuthRequired);
    expect(exitCodeOfError(new A2aTransportError('Network', 'refused'))).toBe(CliExitCode.Network);
    expect(exitCodeOfError(new A2aTransportError('Timeout', 'slow'))).toBe(CliExitCode.Network);
    expect(exitCodeOfError(new A2aCardError('CardUnavailable', 'gone'))).toBe(CliExitCode.Network);
    expect(exitCodeOfError(new A2aAddressRefusedError('private'))).toBe(CliExitCode.Network);
    expect(exitCodeOfError(new A2aTransportError('Aborted', 'ctrl-c'))).toBe(CliExitCode.Interrupted);
    expect(exitCodeOfError(new Error('a bug'))).toBe(CliExitCode.Internal);
  });
});
