import { A2aError } from '../../../errors/a2a.error.js';

/**
 * A value ProtoJSON cannot hold, thrown where it is found and given its path on the way out: each enclosing field or
 * element adds its segment in a `catch`, so the success path builds no path strings.
 */
export class Misfit {
  /** Innermost first. */
  readonly segments: string[] = [];

  constructor(readonly toError: (path: string) => Error) {}

  path(): string {
    const path = this.segments.reverse().join('');
    return path.startsWith('.') ? path.slice(1) : path;
  }
}

/** Adds `segment` to the path of a {@link Misfit} passing through; anything else is rethrown as is. */
export function within(error: unknown, segment: string): unknown {
  if (error instanceof Misfit) error.segments.push(segment);
  return error;
}

/** A value the client sent that ProtoJSON cannot hold: InvalidParams naming the field. */
export function invalid(description: string): Misfit {
  return new Misfit((field) => A2aError.invalidParams([{ field, description }]));
}
