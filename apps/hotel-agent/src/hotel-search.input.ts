import { IsInt, IsISO8601, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The hotel skill's input: a data part `{ "city": "Lisbon", "checkIn": "2026-12-10", "checkOut": "2026-12-13",
 * "guests": 1 }`. When several hotels match, the skill asks which one; the answer is the same input again with
 * `"hotelId"` set to one of the options' ids (a follow-up's data part is the whole input).
 */
export class HotelSearchInput {
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  city!: string;

  @Matches(DAY, { message: 'checkIn must be a date like 2026-12-10' })
  @IsISO8601({ strict: true }, { message: 'checkIn must be a date on the calendar' })
  checkIn!: string;

  @Matches(DAY, { message: 'checkOut must be a date like 2026-12-13' })
  @IsISO8601({ strict: true }, { message: 'checkOut must be a date on the calendar' })
  checkOut!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(9)
  guests: number = 1;

  /** The hotel wanted: one of the options' ids when the agent asked which. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  hotelId?: string;
}
