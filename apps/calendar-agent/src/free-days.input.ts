import { IsISO8601, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** The free-days skill's input: a data part `{ "user": "ada" }`, optionally with `"weekOf": "2026-12-07"`. */
export class FreeDaysInput {
  /** Whose calendar. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  user!: string;

  /** Any day (`YYYY-MM-DD`) of the week to look at; next week when absent. */
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'weekOf must be a date like 2026-12-07' })
  @IsISO8601({ strict: true }, { message: 'weekOf must be a date on the calendar' })
  weekOf?: string;
}
