import type { A2aGrpcOptions } from '../../../libs/a2a/src/grpc.js';

/** How the calendar agent is deployed; `main.ts` fills it from the environment, tests pass their own. */
export interface CalendarOptions {
  /** Public base URL of the card, e.g. `http://127.0.0.1:3101`. The agent serves no HTTP binding, only its card. */
  baseUrl: string;
  /** Where the gRPC binding listens and what the card advertises: the agent's only interface. */
  grpc: A2aGrpcOptions;
  /** Today, from which "next week" is counted. Default: the clock (`CALENDAR_TODAY=2026-12-01` pins it). */
  today?: () => Date;
}

export const CALENDAR_OPTIONS = Symbol('CALENDAR_OPTIONS');
