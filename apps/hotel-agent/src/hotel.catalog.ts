import { createHash } from 'node:crypto';

// Type aliases, not interfaces, so they count as JSON values for the data parts.
export type Money = { amount: number; currency: string };
export type Hotel = {
  id: string;
  name: string;
  city: string;
  neighbourhood: string;
  stars: number;
  pricePerNight: Money;
  maxGuests: number;
};
/** An option the agent offers when it asks which hotel: the hotel and what the stay would cost. */
export type HotelOption = Hotel & { total: Money };
export type HotelBooking = {
  reservation: string;
  hotel: Hotel;
  checkIn: string;
  checkOut: string;
  nights: number;
  guests: number;
  total: Money;
};
/** The data part of the INPUT_REQUIRED question: answer with the input again, `hotelId` set to an option's `id`. */
export type HotelQuestion = { question: string; answerField: 'hotelId'; options: HotelOption[] };

const eur = (amount: number): Money => ({ amount, currency: 'EUR' });

// A fictional catalog. Two Lisbon hotels take one or two guests, so a Lisbon stay always asks which.
const CATALOG: Hotel[] = [
  {
    id: 'lis-casa-do-rio',
    name: 'Casa do Rio',
    city: 'Lisbon',
    neighbourhood: 'Alfama',
    stars: 4,
    pricePerNight: eur(145),
    maxGuests: 3,
  },
  {
    id: 'lis-miradouro',
    name: 'Hotel Miradouro',
    city: 'Lisbon',
    neighbourhood: 'Chiado',
    stars: 3,
    pricePerNight: eur(118),
    maxGuests: 2,
  },
  {
    id: 'par-cour-carree',
    name: 'Hôtel de la Cour Carrée',
    city: 'Paris',
    neighbourhood: 'Le Marais',
    stars: 4,
    pricePerNight: eur(210),
    maxGuests: 2,
  },
  {
    id: 'ber-spreeblick',
    name: 'Spreeblick',
    city: 'Berlin',
    neighbourhood: 'Friedrichshain',
    stars: 3,
    pricePerNight: eur(99),
    maxGuests: 4,
  },
];

/** The hotels of a city; a city the catalog lacks gets one made-up hotel, the same every time. */
export function hotelsIn(city: string): Hotel[] {
  const listed = CATALOG.filter((hotel) => hotel.city.toLowerCase() === city.toLowerCase());
  if (listed.length > 0) return listed;
  const digest = createHash('sha256').update(city.toLowerCase()).digest();
  const slug =
    city
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'city';
  return [
    {
      id: `${slug}-central`,
      name: `Hotel Central ${city}`,
      city,
      neighbourhood: 'Centre',
      stars: 3,
      pricePerNight: eur(80 + (digest[0] % 120)),
      maxGuests: 4,
    },
  ];
}

export function optionOf(hotel: Hotel, nights: number): HotelOption {
  return { ...hotel, total: eur(hotel.pricePerNight.amount * nights) };
}

export function bookingOf(
  hotel: Hotel,
  checkIn: string,
  checkOut: string,
  nights: number,
  guests: number,
): HotelBooking {
  const reservation = `HR-${createHash('sha256').update(`${hotel.id}|${checkIn}|${checkOut}|${guests}`).digest('hex').slice(0, 6).toUpperCase()}`;
  return { reservation, hotel, checkIn, checkOut, nights, guests, total: eur(hotel.pricePerNight.amount * nights) };
}

export function nightsBetween(checkIn: string, checkOut: string): number {
  return Math.round((Date.parse(`${checkOut}T00:00:00Z`) - Date.parse(`${checkIn}T00:00:00Z`)) / 86_400_000);
}
