/**
 * Finds where a package resolves from this library's location, as `import()` would (and so from the app's
 * `node_modules`); throws when it is not installed. Tests pass their own, to simulate a missing package.
 */
export type PackageResolver = (specifier: string) => string;

const resolveFromLibrary: PackageResolver = (specifier) => import.meta.resolve(specifier);

/**
 * The names among `packages` that are not installed, in their order. Resolving, unlike importing, loads nothing, so
 * every missing optional peer is found at once, before a module that imports one of them is loaded. A package that is
 * installed but exports no `.` entry still counts as installed.
 */
export function missingPackages(packages: readonly string[], resolve: PackageResolver = resolveFromLibrary): string[] {
  return packages.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch (error) {
      if (isModuleNotFound(error)) return true;
      if ((error as { code?: unknown } | undefined)?.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return false;
      throw error;
    }
  });
}

/** Node's error for a package (or file) that is not there, from `import()` or `require()`. */
export function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/** `npm i` of each package at its range (`name@range`): what an error about missing peers says to run. */
export function npmInstallCommand(packages: Readonly<Record<string, string>>): string {
  return `npm i ${Object.entries(packages)
    .map(([name, range]) => `${name}@${range}`)
    .join(' ')}`;
}
