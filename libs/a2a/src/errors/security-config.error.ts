import { InvalidA2aOptionsError } from './invalid-a2a-options.error.js';

/** Option `security` (or a skill's `security`) cannot be enforced as written: the app does not start. */
export class InvalidSecurityConfigError extends InvalidA2aOptionsError {
  override readonly name: string = 'InvalidSecurityConfigError';
}
