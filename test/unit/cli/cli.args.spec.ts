import { parseCommandLine, CliUsageError, type CliInvocation } from '../../../libs/a2a/src/cli/cli.args.js';
import { CliMessages } from '../../../libs/a2a/src/cli/cli.messages.js';

const URL_ = 'http://127.0.0.1:3001';

function invocation(...argv: string[]): CliInvocation {
  const request = parseCommandLine(argv);
  if (request.help) throw new Error('expected a command, got help');
  return request.invocation;
}

function usageError(...argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(CliUsageError);
    return (error as Error).message;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('parseCommandLine', () => {
  it('reads send with the remaining words as the text and the message flags anywhere', () => {
    expect(
      invocation('send', '--skill', 'book-flight', URL_, 'fly', 'to', 'Tokyo', '--context', 'c1', '--task', 't1'),
    ).toEqual({
      command: 'send',
      url: URL_,
      text: 'fly to Tokyo',
      skill: 'book-flight',
      context: 'c1',
      task: 't1',
      allowHosts: [],
      allowOrigins: [],
      json: false,
    });
  });

  it('reads a data part as JSON, the text then optional', () => {
    expect(invocation('stream', URL_, '--data', '{"from":"Paris","n":[1,2]}')).toMatchObject({
      command: 'stream',
      data: { from: 'Paris', n: [1, 2] },
    });
    expect(invocation('stream', URL_, '--data', '{"from":"Paris"}').text).toBeUndefined();
    expect(usageError('send', URL_, '--data', '{oops')).toMatch(/^--data is not JSON: /);
  });

  it('reads list filters, spelling states the friendly or the proto way', () => {
    expect(
      invocation('list', URL_, '--context', 'c1', '--state', 'input-required', '--page-size', '5', '--page-token', 'x'),
    ).toMatchObject({ context: 'c1', state: 'TASK_STATE_INPUT_REQUIRED', pageSize: 5, pageToken: 'x' });
    expect(invocation('list', URL_, '--state', 'TASK_STATE_COMPLETED').state).toBe('TASK_STATE_COMPLETED');
    expect(invocation('list', URL_, '--state', 'Completed').state).toBe('TASK_STATE_COMPLETED');
    expect(usageError('list', URL_, '--state', 'done')).toBe(CliMessages.badState('done'));
    expect(usageError('list', URL_, '--page-size', '0')).toBe(CliMessages.badInteger('page-size', '0', 1));
    expect(usageError('list', URL_, '--page-size', '2.5')).toBe(CliMessages.badInteger('page-size', '2.5', 1));
  });

  it('reads the task id of get, cancel and subscribe, and nothing more', () => {
    expect(invocation('get', URL_, 't1', '--history', '0')).toMatchObject({ taskId: 't1', historyLength: 0 });
    expect(invocation('cancel', URL_, 't1').taskId).toBe('t1');
    expect(invocation('subscribe', URL_, 't1').taskId).toBe('t1');
    expect(usageError('get', URL_)).toBe(CliMessages.missingTaskId('get'));
    expect(usageError('cancel', URL_, 't1', 't2')).toBe(CliMessages.extraArguments('cancel', ['t2']));
    expect(usageError('card', URL_, 'extra')).toBe(CliMessages.extraArguments('card', ['extra']));
  });

  it('reads the flags every command takes', () => {
    expect(
      invocation(
        'card',
        URL_,
        '--binding',
        'GRPC',
        '--api-key',
        'k',
        '--bearer',
        'b',
        '--allow-host',
        'agent.internal',
        '--allow-host',
        '10.0.0.0/8',
        '--allow-origin',
        'http://127.0.0.1:50051',
        '--timeout',
        '2.5',
        '--json',
      ),
    ).toEqual({
      command: 'card',
      url: URL_,
      binding: 'GRPC',
      apiKey: 'k',
      bearer: 'b',
      allowHosts: ['agent.internal', '10.0.0.0/8'],
      allowOrigins: ['http://127.0.0.1:50051'],
      timeoutMs: 2500,
      json: true,
    });
    expect(invocation('card', URL_, '--binding', 'rest').binding).toBe('HTTP+JSON');
    expect(invocation('card', URL_, '--binding', 'jsonrpc').binding).toBe('JSONRPC');
    expect(usageError('card', URL_, '--binding', 'soap')).toBe(CliMessages.badBinding('soap'));
    expect(usageError('card', URL_, '--timeout', '0')).toBe(CliMessages.badTimeout('0'));
  });

  it('answers help before anything else', () => {
    expect(parseCommandLine(['--help'])).toEqual({ help: true });
    expect(parseCommandLine(['send', '-h'])).toEqual({ help: true });
  });

  it('refuses what it does not understand, saying what', () => {
    expect(usageError()).toBe(CliMessages.noCommand());
    expect(usageError('fetch', URL_)).toBe(CliMessages.unknownCommand('fetch'));
    expect(usageError('card')).toBe(CliMessages.missingUrl('card'));
    expect(usageError('card', 'ftp://agent.example')).toBe(CliMessages.badUrl('ftp://agent.example'));
    expect(usageError('card', 'agent.example')).toBe(CliMessages.badUrl('agent.example'));
    expect(usageError('send', URL_)).toBe(CliMessages.missingText('send'));
    expect(usageError('get', URL_, 't1', '--state', 'completed')).toBe(CliMessages.flagNotFor('state', 'get'));
    expect(usageError('card', URL_, '--verbose')).toMatch(/--verbose/);
    expect(usageError('card', URL_, '--binding')).toMatch(/--binding/);
  });
});
