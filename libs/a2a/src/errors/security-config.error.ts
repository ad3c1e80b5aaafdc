/** Option `security` (or a skill's `security`) cannot be enforced as written: the app does not start. */
export class InvalidSecurityConfigError extends Error {
  override readonly name = 'InvalidSecurityConfigError';
}
