import type { A2aGrpcOptions } from '../../../libs/a2a/src/grpc.js';
import type { A2aInspectorOptions } from '../../../libs/a2a/src/index.js';
import type { TravelSecurity } from './travel.security.js';

/** How the travel agent is deployed; `main.ts` fills it from the environment, tests pass their own. */
export interface TravelOptions {
  /** Public base URL written into the card, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** Pause between progress updates, in ms, standing in for the calls a real agent would make. Default 400. */
  stepDelayMs?: number;
  /** The gRPC binding: where it binds and what the card advertises. Off when unset. */
  grpc?: A2aGrpcOptions;
  /** Bearer JWTs of your identity provider; the demo is open to anyone when unset. */
  security?: TravelSecurity;
  /** The inspector page (module option `inspector`); `main.ts` turns it on outside production. Off when unset. */
  inspector?: A2aInspectorOptions;
}

export const TRAVEL_OPTIONS = Symbol('TRAVEL_OPTIONS');

export const DEFAULT_STEP_DELAY_MS = 400;
