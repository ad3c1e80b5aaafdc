/**
 * `nestjs-a2a/push-receiver`: the receiving side of A2A push notifications, for apps that are A2A clients. It mounts
 * the webhook agents POST task events to, and exposes them as Observables.
 *
 * ```ts
 * @Module({ imports: [A2aPushReceiverModule.register({ tokens: [process.env.PUSH_TOKEN!] })] })
 * class AppModule {}
 *
 * // Give the agent { url: 'https://me.example/a2a/push', token: process.env.PUSH_TOKEN } as the task's push config, then:
 * pushEvents.forTask(taskId).subscribe((event) => ...); // completes at COMPLETED, FAILED, CANCELED or REJECTED
 * ```
 *
 * Senders met in practice, both accepted:
 * - nestjs-a2a agents: `application/a2a+json`, `X-A2A-Notification-Token` (the config's `token`), `Authorization`
 *   (its `authentication`), and `X-A2A-Event-Id: <taskId>:<seq>`, the same on every retry of an event.
 * - `@a2a-js/sdk` 1.3's `DefaultPushNotificationSender`: the same body (`application/a2a+json`, the StreamResponse in
 *   ProtoJSON), then either `Authorization` (when the config has `authentication`) or `X-A2A-Notification-Token`,
 *   never both, so `tokens` suits configs with a token only and `verify` alone those with `authentication`; and no
 *   event id.
 *
 * With several agents or tasks, give `tokens` as a function of the task id (the tokens issued for that task's
 * configs), so one task's token cannot push another task's events.
 *
 * Redeliveries are dropped by event id only, per sender (its token and `Authorization`) and task. A sender that sends none (the SDK's) has every delivery passed on: no
 * id can be derived from the body without dropping genuine repeats (two identical artifact chunks appended in turn).
 * The SDK does not retry a failed delivery, so it sends no duplicates to drop.
 */
export { A2aPushReceiverModule } from './push-receiver/push-receiver.module.js';
export { A2aPushEvents } from './push-receiver/a2a-push-events.service.js';
export type {
  A2aPushReceiverOptions,
  A2aPushReceiverExtras,
  A2aPushRequest,
  A2aPushTaskTokens,
  A2aPushVerifier,
} from './push-receiver/push-receiver.options.js';
export { InvalidPushReceiverOptionsError } from './push-receiver/push-receiver-options.error.js';
export { PushReceiverMessages } from './push-receiver/push-receiver.messages.js';
export {
  DEFAULT_PUSH_PATH,
  DEFAULT_PUSH_MAX_BODY_BYTES,
  DEFAULT_DEDUP_WINDOW,
} from './push-receiver/push-receiver.constants.js';
