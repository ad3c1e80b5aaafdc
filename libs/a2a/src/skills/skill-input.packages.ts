import { A2aMessages } from '../a2a.messages.js';
import { isModuleNotFound } from '../optional-packages.js';
import {
  SkillInputPackagesIncompatibleError,
  SkillInputPackagesMissingError,
} from '../errors/skill-bootstrap.errors.js';

/** The optional peers typed skill inputs need; the core imports none of them until a skill declares `input`. */
export const SKILL_INPUT_PACKAGES = ['class-validator', 'class-transformer', 'class-validator-jsonschema'] as const;

/** The part of a class-validator `ValidationError` the engine reads. */
export interface InputValidationError {
  property: string;
  value?: unknown;
  constraints?: Record<string, string>;
  children?: InputValidationError[];
}

/** What typed inputs use of the optional peers, loaded once at bootstrap. */
export interface SkillInputPackages {
  /** class-transformer's `plainToInstance`, with the options every input is read with. */
  toInstance(type: new (...args: never[]) => object, plain: object): object;
  /** class-validator's `validate`, with the options every input is checked with. */
  validate(instance: object): Promise<InputValidationError[]>;
  /** The JSON Schemas of every class class-validator knows, by class name; nested classes as `#/$defs/<name>`. */
  schemas(): Record<string, Record<string, unknown>>;
}

/** Loads a module by name: `import()` but in tests, which simulate a missing package. */
export type PackageImporter = (specifier: string) => Promise<unknown>;

const importPackage: PackageImporter = (specifier) => import(specifier);

/**
 * Loads the optional peers of typed inputs with `import()`, at bootstrap, for the first skill that declares `input`
 * (`skillId`, named in the error). A package that is not installed fails bootstrap with
 * {@link SkillInputPackagesMissingError}, one without an export this module uses with
 * {@link SkillInputPackagesIncompatibleError}; any other loading error is thrown as is.
 *
 * Validation: `whitelist` and `forbidNonWhitelisted`, so a property the DTO does not declare is a violation rather than
 * silently dropped (a misspelt optional field would otherwise go unnoticed), and never reaches the skill;
 * `forbidUnknownValues`. Transformation: no implicit conversion (`"2"` is not a number: the input is JSON, typed by its
 * sender), class defaults kept for absent properties.
 */
export async function loadSkillInputPackages(
  skillId: string,
  load: PackageImporter = importPackage,
): Promise<SkillInputPackages> {
  // class-transformer's metadata (`@Type(() => Passenger)`) tells class-validator-jsonschema the class of array items.
  const specifiers = [...SKILL_INPUT_PACKAGES, 'class-transformer/cjs/storage.js'];
  const loaded = await Promise.allSettled(specifiers.map((specifier) => load(specifier)));
  const missing = new Set<string>();
  loaded.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    if (!isModuleNotFound(outcome.reason)) throw outcome.reason;
    missing.add(index < SKILL_INPUT_PACKAGES.length ? specifiers[index] : 'class-transformer');
  });
  if (missing.size > 0)
    throw new SkillInputPackagesMissingError(A2aMessages.skillInputPackagesMissing(skillId, [...missing]));
  const [validator, transformer, jsonSchema, transformerStorage] = loaded.map(
    (outcome) => (outcome as PromiseFulfilledResult<unknown>).value,
  );
  const plainToInstance = exportOf<(type: unknown, plain: unknown, options: object) => object>(
    transformer,
    'plainToInstance',
  );
  const validate = exportOf<(instance: object, options: object) => Promise<InputValidationError[]>>(
    validator,
    'validate',
  );
  const toSchemas = exportOf<(options: object) => Record<string, Record<string, unknown>>>(
    jsonSchema,
    'validationMetadatasToSchemas',
  );
  const classTransformerMetadataStorage = exportOf<object>(transformerStorage, 'defaultMetadataStorage');
  return {
    toInstance: (type, plain) =>
      plainToInstance(type, plain, { enableImplicitConversion: false, exposeDefaultValues: true }),
    validate: (instance) =>
      validate(instance, {
        whitelist: true,
        forbidNonWhitelisted: true,
        forbidUnknownValues: true,
        validationError: { target: false, value: true },
      }),
    schemas: () => toSchemas({ classTransformerMetadataStorage, refPointerPrefix: '#/$defs/' }),
  };
}

/** A named export of a CommonJS package: on the namespace when Node detected it, else on its `default`. */
function exportOf<T>(namespace: unknown, name: string): T {
  const module = namespace as Record<string, unknown> & { default?: Record<string, unknown> };
  const value = module[name] ?? module.default?.[name];
  if (value === undefined)
    throw new SkillInputPackagesIncompatibleError(A2aMessages.skillInputPackageIncompatible(name));
  return value as T;
}
