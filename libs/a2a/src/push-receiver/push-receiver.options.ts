import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/**
 * What a `verify` hook sees of a push notification before its body is read: the headers that identify the sender,
 * and node's request for anything else (the TLS peer certificate of an mTLS sender, the remote address).
 */
export interface A2aPushRequest {
  /** `X-A2A-Notification-Token`: the `token` of the push notification config the sender was given. */
  readonly notificationToken: string | undefined;
  /** `Authorization` (`<scheme> <credentials>`), from the config's `authentication`. */
  readonly authorization: string | undefined;
  /** `X-A2A-Event-Id` (`<taskId>:<seq>` from nestjs-a2a agents); other senders may send none. */
  readonly eventId: string | undefined;
  readonly headers: IncomingHttpHeaders;
  /** Node's request; its body is still unread and must stay so (the receiver reads it after the hook). */
  readonly raw: IncomingMessage;
}

/** Decides whether a push notification comes from a sender this app trusts. Throwing answers 500 (the sender retries). */
export type A2aPushVerifier = (request: A2aPushRequest) => boolean | Promise<boolean>;

/**
 * The token(s) this app gave the agent in the push notification configs of task `taskId` (none: undefined or `[]`).
 * Throwing answers 500 (the sender retries).
 */
export type A2aPushTaskTokens = (
  taskId: string,
) => string | readonly string[] | undefined | Promise<string | readonly string[] | undefined>;

/**
 * Options of `A2aPushReceiverModule.register()` / `registerAsync()`. At least one of `tokens` and `verify` is given;
 * with both, a notification must pass both.
 */
export interface A2aPushReceiverOptions {
  /**
   * The path of the webhook (the POST route), below the app's global prefix, as given to the agent in the push
   * notification config's `url`. Default `/a2a/push`.
   */
  path?: string;
  /**
   * The accepted values of `X-A2A-Notification-Token` (the `token` given to the agent in each push notification
   * config), compared in constant time.
   * - A list: each token is accepted for the events of every task, so it suits one sender (several tokens allow
   *   rotating one without downtime).
   * - A function of the event's task id, giving the tokens issued for that task's configs: a token is accepted for
   *   its own task's events only, so an agent holding one task's token cannot push events of another task. The body
   *   is read (up to `maxBodyBytes`) before the check, as the task is named there; an event of no task is refused.
   */
  tokens?: readonly string[] | A2aPushTaskTokens;
  /**
   * Any other check of the sender, e.g. of `Authorization` (a config with `authentication`). Alone (without `tokens`)
   * for senders that send one or the other: `@a2a-js/sdk`'s sends `Authorization` instead of the token header when the
   * config has `authentication`.
   */
  verify?: A2aPushVerifier;
  /** The largest body accepted, in bytes; larger ones are answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * How many event ids (`X-A2A-Event-Id`) are remembered to drop redeliveries: the most recent ones, the oldest
   * forgotten first. An id is a duplicate only from the same sender (the same token and `Authorization`) for the same
   * task, so one sender's ids never suppress another's events. Default 10,000; 0 turns de-duplication off.
   */
  dedupWindow?: number;
}

/** Static options of the module (not resolvable by `registerAsync`'s factory). */
export interface A2aPushReceiverExtras {
  /** Makes `A2aPushEvents` injectable in every module of the app. Default false. */
  isGlobal?: boolean;
}
