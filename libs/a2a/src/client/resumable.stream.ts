import { Observable } from 'rxjs';
import type { JsonObject, StreamResponse, Task } from '../protocol/a2a.types.js';
import type { A2aCallOptions, A2aStreamOptions } from './a2a-call.options.js';
import { A2aProtocolError, A2aTransportError, isUnauthenticated } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import type { ClientCredentials } from './client-credentials.js';
import type { InterfaceCaller } from './interface.caller.js';
import type { ObservedCall } from './observed-call.js';
import { asStreamResponse, isInterruptedState, isTerminalState, stateOf, taskIdOf } from './response.shapes.js';
import { abortedError, type RetryPolicy, sleep } from './retry.policy.js';
import { withEventId } from './stream-event.id.js';
import type { ClientMethod, StreamingMethod } from './transports/client.transport.js';

/** What a stream needs of the client it belongs to. */
export interface StreamingClient {
  /** Fails once the client is closed; otherwise the call's trace and audit, begun in the caller's context. */
  open(method: ClientMethod, request: JsonObject): Promise<ObservedCall>;
  /** GetTask, to learn how a task that ended while the stream was down ended. */
  getTask(taskId: string, options: A2aCallOptions): Promise<Task>;
}

/**
 * The streams of a client (SendStreamingMessage, SubscribeToTask): a break is retried under the retry policy, from the
 * last event id seen; a SendStreamingMessage that breaks once a task exists goes on as SubscribeToTask.
 */
export class ResumableStreams {
  constructor(
    private readonly client: StreamingClient,
    private readonly caller: InterfaceCaller,
    private readonly credentials: ClientCredentials,
    private readonly retry: RetryPolicy,
  ) {}

  /**
   * A stream as an Observable: each subscription makes its own call; unsubscribing ends it. The Observable errors with
   * the call's A2aClientError and completes when the agent ends the stream.
   */
  observable(method: StreamingMethod, request: JsonObject, options: A2aStreamOptions): Observable<StreamResponse> {
    return new Observable<StreamResponse>((subscriber) => {
      const unsubscribed = new AbortController();
      const signal = options.signal ? AbortSignal.any([options.signal, unsubscribed.signal]) : unsubscribed.signal;
      this.run(method, request, options, signal, (event) => subscriber.next(event)).then(
        () => subscriber.complete(),
        (error: unknown) => {
          if (unsubscribed.signal.aborted) return;
          subscriber.error(options.signal?.aborted ? abortedError(method, options.signal.reason) : error);
        },
      );
      return () => unsubscribed.abort(abortedError(method, 'unsubscribed'));
    });
  }

  private async run(
    method: StreamingMethod,
    request: JsonObject,
    options: A2aStreamOptions,
    signal: AbortSignal,
    emit: (event: StreamResponse) => void,
  ): Promise<void> {
    const observed = await this.client.open(method, request);
    try {
      await this.events(method, request, options, signal, observed, (event) => {
        observed.event(event);
        emit(event);
      });
      observed.end();
    } catch (error) {
      // Unsubscribing is how a reader leaves a stream, not a failure of the call.
      observed.end(signal.aborted && !options.signal?.aborted ? undefined : error);
      throw error;
    }
  }

  private async events(
    method: StreamingMethod,
    request: JsonObject,
    options: A2aStreamOptions,
    signal: AbortSignal,
    observed: ObservedCall,
    emit: (event: StreamResponse) => void,
  ): Promise<void> {
    const resume = options.resume !== false;
    let current: { method: StreamingMethod; request: JsonObject } = { method, request };
    let lastEventId = options.lastEventId;
    let taskId: string | undefined = method === 'SubscribeToTask' ? (request.id as string) : undefined;
    let sawMessage = false;
    let reconnecting = false;
    /** Set once a broken SendStreamingMessage goes on as SubscribeToTask: it then ends where the send stream would have. */
    let continuingSend = false;
    let refreshedCredentials = false;
    for (let failures = 1; ;) {
      try {
        for await (const frame of this.caller.stream(
          current.method,
          current.request,
          options,
          lastEventId,
          signal,
          observed,
        )) {
          const response = asStreamResponse(frame.response);
          if (!response)
            throw new A2aTransportError(
              'InvalidResponse',
              A2aClientMessages.invalidResponse(current.method, 'an event is not a StreamResponse'),
            );
          failures = 1;
          if (frame.id !== undefined) lastEventId = frame.id;
          taskId ??= taskIdOf(response);
          if ('message' in response && response.message) sawMessage = true;
          emit(withEventId(response, frame.id));
          const state = stateOf(response);
          if (continuingSend && (isTerminalState(state) || isInterruptedState(state))) return;
        }
        return;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (!refreshedCredentials && isUnauthenticated(error) && this.credentials.invalidate()) {
          refreshedCredentials = true;
          continue;
        }
        // Reconnecting without an event id to a task that ended meanwhile is refused (spec §3.1.6): its final state ends the stream.
        if (
          reconnecting &&
          current.method === 'SubscribeToTask' &&
          taskId !== undefined &&
          error instanceof A2aProtocolError &&
          error.kind === 'UnsupportedOperation'
        ) {
          const task = await observed
            .within(() => this.client.getTask(taskId!, { signal, timeoutMs: options.timeoutMs }))
            .catch(() => undefined);
          if (task && isTerminalState(task.status.state)) return emit({ task });
        }
        if (!resume || sawMessage || !this.retry.shouldRetry(error, failures)) throw error;
        await sleep(this.retry.delayMs(failures, error), signal).catch(() => {
          throw signal.reason ?? error;
        });
        failures++;
        reconnecting = true;
        if (current.method === 'SendStreamingMessage' && taskId !== undefined) {
          continuingSend = true;
          current = { method: 'SubscribeToTask', request: { id: taskId } };
        }
      }
    }
  }
}
