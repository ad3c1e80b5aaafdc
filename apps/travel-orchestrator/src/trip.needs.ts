import type { AgentNeed } from './agent-chooser.js';

const JSON_DATA = 'application/json';

/** The free days of the traveller next week, from a calendar. */
export const FREE_DAYS_NEED: AgentNeed = {
  id: 'free-days',
  description: "find the traveller's free days next week",
  tags: ['calendar', 'availability', 'scheduling'],
  sends: JSON_DATA,
  reads: JSON_DATA,
};

/** A flight for those days, searched and held; followed as a stream, so the caller sees the offers come in. */
export const FLIGHT_NEED: AgentNeed = {
  id: 'flight',
  description: 'search flights for the trip and hold one',
  tags: ['flights', 'flight', 'airline'],
  sends: JSON_DATA,
  reads: JSON_DATA,
  streaming: true,
};

/** A hotel at the destination for those nights. */
export const HOTEL_NEED: AgentNeed = {
  id: 'hotel',
  description: 'find and book a hotel at the destination',
  tags: ['hotels', 'hotel', 'lodging'],
  sends: JSON_DATA,
  reads: JSON_DATA,
};

/** Everything a trip needs, in the order the orchestrator does it. */
export const TRIP_NEEDS: readonly AgentNeed[] = [FREE_DAYS_NEED, FLIGHT_NEED, HOTEL_NEED];
