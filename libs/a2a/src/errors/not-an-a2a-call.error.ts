/** A function meant for A2A calls (`setA2aPrincipal`) was given the ExecutionContext of another route or handler. */
export class NotAnA2aCallError extends Error {
  override readonly name = 'NotAnA2aCallError';
}
