import { createHash } from 'node:crypto';

// Type aliases, not interfaces, so they count as JSON values for the artifacts' data parts.
export type Money = { amount: number; currency: string };
export type FlightLeg = { flightNumber: string; from: string; to: string; date: string; departs: string };
export type FlightOffer = { offerId: string; airline: string; outbound: FlightLeg; inbound?: FlightLeg; price: Money };
/** A held offer: its reference, the travellers, and what they pay together. */
export type FlightHold = {
  reference: string;
  offer: FlightOffer;
  travellers: number;
  total: Money;
  heldForHours: number;
};

export interface FlightSearch {
  from: string;
  to: string;
  departure: string;
  return?: string;
  travellers: number;
}

// Fictional carriers: the fares are made up, and deterministic so the demo and its tests always agree.
const AIRLINES = [
  { code: 'NA', name: 'Nest Air' },
  { code: 'AG', name: 'Agent Airways' },
  { code: 'PP', name: 'Protocol Pacific' },
  { code: 'SJ', name: 'Stream Jet' },
];

export const OFFERS_PER_SEARCH = 3;

/** Three offers for a search, each from its own carrier; the same search always finds the same offers, per traveller. */
export function offersFor(search: FlightSearch): FlightOffer[] {
  const digest = createHash('sha256')
    .update(`${search.from}|${search.to}|${search.departure}|${search.return ?? ''}`.toLowerCase())
    .digest();
  return Array.from({ length: OFFERS_PER_SEARCH }, (_, index) => {
    const byte = (offset: number) => digest[(index * 8 + offset) % digest.length];
    const airline = AIRLINES[(digest[0] + index) % AIRLINES.length];
    const number = 100 + ((byte(1) * 7 + byte(2)) % 800);
    const leg = (flightNumber: string, from: string, to: string, date: string, hourByte: number): FlightLeg => ({
      flightNumber,
      from,
      to,
      date,
      departs: `${String(6 + (hourByte % 16)).padStart(2, '0')}:${['00', '15', '30', '45'][byte(5) % 4]}`,
    });
    const offer: FlightOffer = {
      offerId: `${airline.code}-${digest.toString('hex', index * 4, index * 4 + 4)}`,
      airline: airline.name,
      outbound: leg(`${airline.code}${number}`, search.from, search.to, search.departure, byte(3)),
      price: { amount: 90 + ((byte(6) * 3 + byte(7)) % 400) + (search.return ? 80 : 0), currency: 'EUR' },
    };
    if (search.return)
      offer.inbound = leg(`${airline.code}${number + 1}`, search.to, search.from, search.return, byte(4));
    return offer;
  });
}

/** Holds the cheapest offer (the first of equals) for the travellers. */
export function holdCheapest(offers: readonly FlightOffer[], travellers: number): FlightHold {
  const offer = offers.reduce((best, candidate) => (candidate.price.amount < best.price.amount ? candidate : best));
  const reference = `FH-${createHash('sha256').update(`${offer.offerId}|${travellers}`).digest('hex').slice(0, 6).toUpperCase()}`;
  return {
    reference,
    offer,
    travellers,
    total: { amount: offer.price.amount * travellers, currency: offer.price.currency },
    heldForHours: 24,
  };
}

/** "Nest Air NA123 Paris → Lisbon Thu 10 Dec 08:15": one line of an offer. */
export function describeOffer(offer: FlightOffer): string {
  const legs = [offer.outbound, offer.inbound].filter((leg): leg is FlightLeg => leg !== undefined);
  const flights = legs
    .map((leg) => `${leg.flightNumber} ${leg.from} → ${leg.to} ${leg.date} ${leg.departs}`)
    .join(', back ');
  return `${offer.airline} ${flights}: ${offer.price.amount} ${offer.price.currency}`;
}
