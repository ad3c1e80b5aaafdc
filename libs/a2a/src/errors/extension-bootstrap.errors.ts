/** One extension URI is declared twice (by option `extensions` or `@A2aExtension`) with different fields. */
export class ConflictingExtensionError extends Error {
  override readonly name = 'ConflictingExtensionError';
}

/** An extension declaration is unusable (its URI, its fields), or `@A2aExtension` sits on a class that is no skill. */
export class InvalidExtensionError extends Error {
  override readonly name = 'InvalidExtensionError';
}
