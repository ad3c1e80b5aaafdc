import { EventEmitter } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BatchedStreamWriter, MAX_UNSENT_EVENTS } from '../../../libs/a2a/src/bindings/batched-stream.writer.js';

/** A sink (an SSE response, an HTTP/2 stream) that records its writes and answers `write()` with `accepts`. */
class FakeStream extends EventEmitter {
  readonly writes: Buffer[] = [];
  accepts = true;
  writableEnded = false;
  destroyed = false;
  write(chunk: Buffer): boolean {
    this.writes.push(chunk);
    return this.accepts;
  }
}

const message = (n: number) => Buffer.from([n]);
const writerOn = (stream: FakeStream) => new BatchedStreamWriter<Buffer>(stream, Buffer.concat);

/** A writer whose stream took message 1 (written a tick later) and then refused more: it waits for 'drain'. */
async function drainingWriter() {
  const stream = new FakeStream();
  const writer = writerOn(stream);
  stream.accepts = false;
  writer.write(message(1));
  await nextTurn();
  return { stream, writer };
}

describe('BatchedStreamWriter', () => {
  it('writes the messages of one tick in one write, in order', async () => {
    const stream = new FakeStream();
    const writer = writerOn(stream);
    for (let i = 0; i < 3; i++) expect(writer.write(message(i))).toBe(true);
    expect(stream.writes).toEqual([]);
    await nextTurn();
    expect(stream.writes).toEqual([Buffer.from([0, 1, 2])]);
  });

  it('holds messages while the stream drains, and sends them on drain', async () => {
    const { stream, writer } = await drainingWriter();
    writer.write(message(2));
    await nextTurn();
    expect(stream.writes).toEqual([message(1)]);
    stream.accepts = true;
    stream.emit('drain');
    expect(stream.writes).toEqual([message(1), message(2)]);
  });

  it(`refuses a message once a client that has not drained for a loop turn leaves ${MAX_UNSENT_EVENTS} unsent`, async () => {
    const { writer } = await drainingWriter();
    await nextTurn();
    for (let i = 0; i < MAX_UNSENT_EVENTS; i++) expect(writer.write(message(1))).toBe(true);
    expect(writer.write(message(2))).toBe(false);
  });

  it('does not hold a burst within one turn against the client', async () => {
    const stream = new FakeStream();
    const writer = writerOn(stream);
    stream.accepts = false;
    for (let i = 0; i < 3 * MAX_UNSENT_EVENTS; i++) expect(writer.write(message(1))).toBe(true);
  });

  it('hands everything to the stream on finish, drained or not; nothing after the stream ended', async () => {
    const { stream, writer } = await drainingWriter();
    writer.write(message(2));
    writer.finish();
    expect(stream.writes).toEqual([message(1), message(2)]);
    stream.writableEnded = true;
    writer.write(message(3));
    await nextTurn();
    expect(stream.writes).toHaveLength(2);
  });
});
