import { createHash } from 'node:crypto';

/** A day as `YYYY-MM-DD` (UTC): what the calendar's data parts carry. */
export type IsoDay = string;

// A type alias, not an interface, so it counts as a JSON value for the artifact's data part.
export type FreeDays = {
  user: string;
  week: { start: IsoDay; end: IsoDay };
  busyDays: IsoDay[];
  freeDays: IsoDay[];
  /** The longest run of free days (the earliest of equals): leave on the first, come back on the last. */
  trip: { departure: IsoDay; return: IsoDay; nights: number };
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** The Monday of the week after the one `today` is in (weeks start on Monday, as in ISO 8601). */
export function nextWeekStart(today: Date): IsoDay {
  return addDays(mondayOf(isoDay(today)), 7);
}

/** The Monday of the week `day` is in. */
export function mondayOf(day: IsoDay): IsoDay {
  const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return addDays(day, -weekday);
}

/**
 * A made-up but stable calendar: the user is busy two days of Monday to Thursday, chosen from a hash of the user and
 * the week, and free from Friday on. So every week has a trip of at least three days (two nights), and the same
 * question always gets the same answer.
 */
export function freeDaysIn(user: string, weekStart: IsoDay): FreeDays {
  const digest = createHash('sha256').update(`${user.toLowerCase()}|${weekStart}`).digest();
  const busyWeekdays = new Set<number>();
  for (let i = 0; busyWeekdays.size < 2; i++) busyWeekdays.add(digest[i] % 4);
  const days = Array.from({ length: 7 }, (_, offset) => addDays(weekStart, offset));
  const free = days.map((_, offset) => !busyWeekdays.has(offset));

  let best = { start: 0, length: 0 };
  for (let start = 0; start < 7; start++) {
    let length = 0;
    while (start + length < 7 && free[start + length]) length++;
    if (length > best.length) best = { start, length };
  }
  return {
    user,
    week: { start: weekStart, end: days[6] },
    busyDays: days.filter((_, offset) => !free[offset]),
    freeDays: days.filter((_, offset) => free[offset]),
    trip: { departure: days[best.start], return: days[best.start + best.length - 1], nights: best.length - 1 },
  };
}

export function isoDay(date: Date): IsoDay {
  return date.toISOString().slice(0, 10);
}

export function addDays(day: IsoDay, days: number): IsoDay {
  return isoDay(new Date(new Date(`${day}T00:00:00Z`).getTime() + days * DAY_MS));
}

/** "Thu 10 Dec": how the agents say a day to people. */
export function dayName(day: IsoDay): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}
