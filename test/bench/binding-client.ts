import type { BenchTarget, Binding } from './driver-protocol.js';
import { GrpcBindingClient } from './grpc-binding.client.js';
import { HttpBindingClient } from './http-binding.client.js';

/**
 * The calls the load driver makes, over one binding. The `…Checked` calls parse the whole answer and check it against
 * the conformance agent's behaviour (once per measurement); the others only check what is cheap (status, event
 * count, final state), so that the driver stays light in the timed loops.
 */
export interface BindingClient {
  /** SendMessage `echo hello`, fully checked; the id of the completed task. */
  sendChecked(): Promise<string>;
  send(): Promise<void>;
  /** GetTask, fully checked: the completed echo task with this id. */
  getChecked(taskId: string): Promise<void>;
  get(taskId: string): Promise<void>;
  /** SendStreamingMessage `stream <chunks>`, every event checked; the number of events, which later streams must match. */
  streamChecked(chunks: number): Promise<number>;
  /** ms from the call to its first event. */
  stream(chunks: number, expectedEvents: number): Promise<number>;
  /** Opens `connections` connections before a timed phase that needs them, so it times streams, not handshakes. */
  connect(connections: number): Promise<void>;
  close(): void;
}

/** A client for `concurrency` calls in flight at once. */
export function bindingClient(target: BenchTarget, binding: Binding, concurrency: number): BindingClient {
  return binding === 'grpc' ? new GrpcBindingClient(target) : new HttpBindingClient(target, binding, concurrency);
}
