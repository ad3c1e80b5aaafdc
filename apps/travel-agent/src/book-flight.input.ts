import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';

/** One traveller on the booking. */
export class Passenger {
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name!: string;
}

/**
 * The flight skill's typed input: a data part `{ "from": "Paris", "to": "Tokyo", "date": "2026-12-24", "passengers":
 * [{ "name": "Ada" }] }`, or what `parseText` reads from a plain-text request and the earlier messages of the task.
 */
export class BookFlightInput {
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  from!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  to!: string;

  /** `YYYY-MM-DD`, a real calendar date (2026-02-30 is refused). */
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'date must be a date like 2026-12-24' })
  @IsISO8601(
    { strict: true },
    {
      message: ({ value }) =>
        typeof value === 'string' ? `${value} is not a date on the calendar` : 'date must be a date on the calendar',
    },
  )
  date!: string;

  /** Who flies; one unnamed traveller when absent. */
  @IsOptional()
  @ArrayMinSize(1)
  @ArrayMaxSize(9)
  @ValidateNested({ each: true })
  @Type(() => Passenger)
  passengers?: Passenger[];
}
