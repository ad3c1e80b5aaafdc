/** How the hotel agent is deployed; `main.ts` fills it from the environment, tests pass their own. */
export interface HotelOptions {
  /** Public base URL written into the card, e.g. `http://127.0.0.1:3103`. */
  baseUrl: string;
}
