import type { StreamResponse, TaskState } from '../../../libs/a2a/src/protocol/a2a.types.js';
import { StreamDisplay } from '../../../libs/a2a/src/cli/stream.display.js';
import { VirtualTerminal } from './virtual-terminal.js';

const ids = { taskId: 't1', contextId: 'c1' };

function status(state: TaskState, text?: string): StreamResponse {
  return {
    statusUpdate: {
      ...ids,
      status: {
        state,
        ...(text === undefined ? {} : { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text }] } }),
      },
    },
  };
}

function chunk(text: string, append: boolean, lastChunk = false): StreamResponse {
  return {
    artifactUpdate: { ...ids, artifact: { artifactId: 'a1', name: 'story', parts: [{ text }] }, append, lastChunk },
  };
}

const task: StreamResponse = { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_SUBMITTED' } } };

/** Collects what a pipe would receive. */
class Pipe {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

describe('StreamDisplay on a terminal', () => {
  it('redraws one status line in place under the artifact text, chunks running on above it', () => {
    const screen = new VirtualTerminal(40);
    const display = new StreamDisplay(screen);
    display.show(task);
    expect(screen.lines()).toEqual(['[submitted]']);
    display.show(status('TASK_STATE_WORKING', 'Searching flights…'));
    expect(screen.lines()).toEqual(['[working] Searching flights…']);
    display.show(chunk('Once upon', false));
    expect(screen.lines()).toEqual(['[story]', 'Once upon', '[working] Searching flights…']);
    display.show(chunk(' a time', true));
    display.show(status('TASK_STATE_WORKING', 'Writing…'));
    expect(screen.lines()).toEqual(['[story]', 'Once upon a time', '[working] Writing…']);
    display.show(chunk('.\nThe end', true, true));
    display.show(status('TASK_STATE_COMPLETED', 'Done.'));
    display.finish();
    expect(screen.lines()).toEqual(['[story]', 'Once upon a time.', 'The end', '[completed] Done.']);
  });

  it('keeps a wrapped partial line and a long status within their rows', () => {
    const screen = new VirtualTerminal(10);
    const display = new StreamDisplay(screen);
    display.show(status('TASK_STATE_WORKING', 'a status far wider than the screen'));
    expect(screen.lines()).toEqual(['[working]']);
    display.show(chunk('0123456789abcdef', false));
    display.show(chunk('ghij', true));
    display.show(status('TASK_STATE_WORKING', 'next'));
    expect(screen.lines()).toEqual(['[story]', '0123456789', 'abcdefghij', '[working]']);
    display.finish();
    // Once finished, the status is a line like any other, wrapped by the terminal.
    expect(screen.lines()).toEqual(['[story]', '0123456789', 'abcdefghij', '[working]', 'next']);
  });

  it('shows data, file and url parts on lines of their own, and a direct message', () => {
    const screen = new VirtualTerminal(60);
    const display = new StreamDisplay(screen);
    display.show({
      artifactUpdate: {
        ...ids,
        artifact: {
          artifactId: 'a2',
          name: 'data',
          parts: [
            { text: 'see:' },
            { data: { ok: true } },
            { raw: Buffer.from('hello').toString('base64'), filename: 'hello.txt', mediaType: 'text/plain' },
            { url: 'https://example.com/a.pdf' },
          ],
        },
      },
    });
    display.show({ message: { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'bye' }] } });
    display.finish();
    expect(screen.lines()).toEqual([
      '[data]',
      'see:',
      '{',
      '  "ok": true',
      '}',
      '[file hello.txt (text/plain, 5 bytes)]',
      '[url https://example.com/a.pdf]',
      'bye',
    ]);
  });

  it('does not repeat artifacts a later task event carries again (a resumed stream, a follow-up)', () => {
    const screen = new VirtualTerminal(40);
    const display = new StreamDisplay(screen);
    display.show(chunk('once', false, true));
    display.show({
      task: {
        id: 't1',
        contextId: 'c1',
        status: { state: 'TASK_STATE_WORKING' },
        artifacts: [
          { artifactId: 'a1', name: 'story', parts: [{ text: 'once' }] },
          { artifactId: 'a3', name: 'more', parts: [{ text: 'new' }] },
        ],
      },
    });
    display.finish();
    expect(screen.lines()).toEqual(['[story]', 'once', '[more]', 'new', '[working]']);
  });
});

describe('StreamDisplay in a pipe', () => {
  it('writes each new status as a line and artifact text as it arrives, no control sequences', () => {
    const pipe = new Pipe();
    const display = new StreamDisplay(pipe);
    display.show(task);
    display.show(status('TASK_STATE_WORKING'));
    display.show(chunk('chunk 1', false));
    display.show(status('TASK_STATE_WORKING'));
    display.show(chunk('chunk 2', true, true));
    display.show(status('TASK_STATE_COMPLETED', 'Done.'));
    display.finish();
    expect(pipe.text).toBe('[submitted]\n[working]\n[story]\nchunk 1chunk 2\n[completed] Done.\n');
  });

  it('ends an unfinished line before a status line', () => {
    const pipe = new Pipe();
    const display = new StreamDisplay(pipe);
    display.show(chunk('half', false));
    display.show(status('TASK_STATE_FAILED', 'Broke.'));
    display.finish();
    expect(pipe.text).toBe('[story]\nhalf\n[failed] Broke.\n');
  });
});
