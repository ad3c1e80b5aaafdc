import type { Observable } from 'rxjs';

/**
 * Reads an Observable with `for await`: values are buffered until read, an error is thrown where it is read, and
 * leaving the loop early (break, throw, a generator's return) unsubscribes, which closes a client stream.
 */
export async function* iterate<T>(source: Observable<T>): AsyncGenerator<T> {
  const buffer: T[] = [];
  let ended: { error?: unknown; failed: boolean } | undefined;
  let wake: (() => void) | undefined;
  const subscription = source.subscribe({
    next: (value) => {
      buffer.push(value);
      wake?.();
    },
    error: (error: unknown) => {
      ended = { error, failed: true };
      wake?.();
    },
    complete: () => {
      ended = { failed: false };
      wake?.();
    },
  });
  try {
    for (;;) {
      if (buffer.length > 0) {
        yield buffer.shift()!;
        continue;
      }
      if (ended?.failed) throw ended.error;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    subscription.unsubscribe();
  }
}
