import { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Subject, type Observable } from 'rxjs';
import { MAX_UNSENT_EVENTS } from '../../../libs/a2a/src/bindings/batched-stream.writer.js';
import { pacedByReader } from '../../../libs/a2a/src/bindings/grpc/paced-by-reader.js';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';

/**
 * A grpc-js call as Nest's writer sees it: an objectMode Writable that needs a drain after 2 unwritten messages, whose
 * writes complete only when the test says the client read them.
 */
class FakeCall extends Writable {
  readonly delivered: number[] = [];
  private readonly unread: Array<() => void> = [];

  constructor() {
    super({ objectMode: true, highWaterMark: 2 });
  }

  override _write(value: number, _encoding: string, done: () => void): void {
    this.delivered.push(value);
    this.unread.push(done);
  }

  /** The client reads everything written so far, and what the call writes meanwhile, until it has nothing more. */
  async read(): Promise<void> {
    while (this.unread.length > 0) {
      for (const done of this.unread.splice(0)) done();
      await nextTurn();
    }
  }
}

/** Nest's `writeObservableToGrpc` in the one respect that matters here: it writes each value as it comes. */
function nestWrites(call: FakeCall, values: Observable<number>) {
  const outcome: { written: number[]; error?: unknown; completed: boolean } = { written: [], completed: false };
  values.pipe(pacedByReader(call)).subscribe({
    next: (value) => {
      outcome.written.push(value);
      call.write(value);
    },
    error: (error: unknown) => (outcome.error = error),
    complete: () => (outcome.completed = true),
  });
  return outcome;
}

describe('pacedByReader', () => {
  it('hands values on while the call takes writes, holds them while it needs a drain, and completes after them', async () => {
    const call = new FakeCall();
    const source = new Subject<number>();
    const outcome = nestWrites(call, source);
    for (const value of [1, 2, 3, 4]) source.next(value);
    source.complete();
    // Two written until the call needed a drain; 3 and 4 held, so Nest's own queue stays empty.
    expect(outcome.written).toEqual([1, 2]);
    expect(outcome.completed).toBe(false);
    await call.read();
    expect(outcome.written).toEqual([1, 2, 3, 4]);
    await call.read();
    expect(outcome.completed).toBe(true);
    expect(call.delivered).toEqual([1, 2, 3, 4]);
  });

  it('holds a burst of one turn whole, past the bound, for a client that reads', async () => {
    const call = new FakeCall();
    const source = new Subject<number>();
    const outcome = nestWrites(call, source);
    const burst = MAX_UNSENT_EVENTS + 500;
    for (let value = 1; value <= burst; value++) source.next(value);
    source.complete();
    while (!outcome.completed && outcome.error === undefined) {
      await call.read();
    }
    expect(outcome.error).toBeUndefined();
    expect(call.delivered).toHaveLength(burst);
  });

  it('ends the stream with the slow-reader error once a client that does not read leaves the bound unread', async () => {
    const call = new FakeCall();
    const source = new Subject<number>();
    const outcome = nestWrites(call, source);
    source.next(1);
    source.next(2);
    await nextTurn();
    await nextTurn();
    // No drain for a whole turn: from now on at most MAX_UNSENT_EVENTS are held.
    for (let value = 3; value < 3 + MAX_UNSENT_EVENTS; value++) source.next(value);
    expect(outcome.error).toBeUndefined();
    source.next(0);
    expect(outcome.error).toBeInstanceOf(A2aError);
    expect((outcome.error as A2aError).message).toContain('did not read');
    // The source is released (the task goes on without this stream), and what was held is dropped.
    expect(source.observed).toBe(false);
    await call.read();
    expect(call.delivered).toEqual([1, 2]);
  });

  it("tells the source's error after the values held before it", async () => {
    const call = new FakeCall();
    const source = new Subject<number>();
    const outcome = nestWrites(call, source);
    for (const value of [1, 2, 3]) source.next(value);
    source.error(new Error('boom'));
    expect(outcome.error).toBeUndefined();
    await call.read();
    expect(outcome.written).toEqual([1, 2, 3]);
    expect((outcome.error as Error).message).toBe('boom');
  });
});
