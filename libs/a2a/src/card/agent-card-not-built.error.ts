/** The AgentCard was read before application bootstrap built it (from a constructor or `onModuleInit`, say). */
export class AgentCardNotBuiltError extends Error {
  override readonly name = 'AgentCardNotBuiltError';
}
