/** Two `@AgentSkill` classes share an id. */
export class DuplicateSkillError extends Error {
  override readonly name = 'DuplicateSkillError';
}

/** An `@AgentSkill` class does not implement the skill contract, or its metadata is unusable. */
export class InvalidSkillClassError extends Error {
  override readonly name = 'InvalidSkillClassError';
}

/** A skill declares a typed input, and the optional peers that read it (class-validator & co.) are not installed. */
export class SkillInputPackagesMissingError extends Error {
  override readonly name = 'SkillInputPackagesMissingError';
}

/** An optional peer of typed inputs is installed at a version that lacks an export this module needs. */
export class SkillInputPackagesIncompatibleError extends Error {
  override readonly name = 'SkillInputPackagesIncompatibleError';
}
