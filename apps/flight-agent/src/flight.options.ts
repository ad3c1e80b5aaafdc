/** How the flight agent is deployed; `main.ts` fills it from the environment, tests pass their own. */
export interface FlightOptions {
  /** Public base URL written into the card, e.g. `http://127.0.0.1:3102`. */
  baseUrl: string;
  /** Pause between streamed updates, in ms, standing in for the airline calls a real agent would make. Default 250. */
  stepDelayMs?: number;
}

export const FLIGHT_OPTIONS = Symbol('FLIGHT_OPTIONS');

export const DEFAULT_FLIGHT_STEP_DELAY_MS = 250;
