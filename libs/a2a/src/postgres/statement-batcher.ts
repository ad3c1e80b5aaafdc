import { A2aError } from '../errors/a2a.error.js';

/**
 * Runs the statements that concurrent calls ask for within one turn of the event loop as one statement over all
 * their rows. On this kind of host a round trip's socket write costs the writer more CPU than the rest of a
 * SendMessage (docs/performance.md), and pg sends one statement per write: under load, N sends then cost one write
 * instead of N. A lone call waits only for the end of the turn it came in.
 *
 * `execute` gets the inputs in order and answers one output per input, in the same order. Should a statement of
 * several rows fail, each row is run again on its own, so that one row's failure is its caller's alone; unless the
 * database could not be reached (`Unavailable`, see `unreachableAsUnavailable`): then every caller gets that at once.
 */
export class StatementBatcher<I, O> {
  private pending: Array<{ input: I; resolve: (output: O) => void; reject: (error: unknown) => void }> = [];

  constructor(
    private readonly execute: (inputs: I[]) => Promise<O[]>,
    /** Most rows in one statement: its parameters are arrays, one element per row. */
    private readonly maxRows = 64,
  ) {}

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.pending.push({ input, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const pending = this.pending;
    this.pending = [];
    for (let start = 0; start < pending.length; start += this.maxRows)
      void this.runBatch(pending.slice(start, start + this.maxRows));
  }

  private async runBatch(batch: typeof this.pending): Promise<void> {
    try {
      const outputs = await this.execute(batch.map((entry) => entry.input));
      batch.forEach((entry, index) => entry.resolve(outputs[index]));
    } catch (error) {
      // A database that cannot be reached fails every row alike: running each again would only fail N times more.
      if (batch.length === 1 || (error instanceof A2aError && error.kind === 'Unavailable'))
        return batch.forEach((entry) => entry.reject(error));
      for (const entry of batch) void this.runBatch([entry]);
    }
  }
}
