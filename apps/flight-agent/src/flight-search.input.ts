import { IsInt, IsISO8601, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The flight skill's input: a data part `{ "from": "Paris", "to": "Lisbon", "departure": "2026-12-10", "return":
 * "2026-12-13", "travellers": 1 }`; no `return` for a one-way trip.
 */
export class FlightSearchInput {
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  from!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  to!: string;

  @Matches(DAY, { message: 'departure must be a date like 2026-12-10' })
  @IsISO8601({ strict: true }, { message: 'departure must be a date on the calendar' })
  departure!: string;

  @IsOptional()
  @Matches(DAY, { message: 'return must be a date like 2026-12-13' })
  @IsISO8601({ strict: true }, { message: 'return must be a date on the calendar' })
  return?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(9)
  travellers: number = 1;
}
