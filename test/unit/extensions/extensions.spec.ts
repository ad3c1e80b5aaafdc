import 'reflect-metadata';
import { Reflector } from '@nestjs/core';
import { A2aMessages } from '../../../libs/a2a/src/a2a.messages.js';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import {
  ConflictingExtensionError,
  InvalidExtensionError,
} from '../../../libs/a2a/src/errors/extension-bootstrap.errors.js';
import { A2aExtensionMetadataAccessor } from '../../../libs/a2a/src/extensions/a2a-extension-metadata.accessor.js';
import {
  A2aExtension,
  type A2aExtensionDeclaration,
} from '../../../libs/a2a/src/extensions/a2a-extension.decorator.js';
import { ExtensionRegistry } from '../../../libs/a2a/src/extensions/extension.registry.js';

/** The extension registry's rules (spec §4.6) and what @A2aExtension writes, without Nest. */

const GEO = 'https://ext.example/geo/v1';
const TRACE = 'https://ext.example/trace/v1';
const SIGN = 'https://ext.example/sign/v1';
const FLIGHTS = { id: 'flights', className: 'FlightSkill' };
const HOTELS = { id: 'hotels', className: 'HotelSkill' };

function registry(
  moduleWide: A2aExtensionDeclaration[] = [],
  bySkill: Array<[typeof FLIGHTS, A2aExtensionDeclaration]> = [],
): ExtensionRegistry {
  const extensions = new ExtensionRegistry();
  for (const declaration of moduleWide) extensions.declare(declaration);
  for (const [skill, declaration] of bySkill) extensions.declare(declaration, skill);
  return extensions;
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('ExtensionRegistry: the card (spec §4.6)', () => {
  it('publishes nothing when nothing is declared', () => {
    expect(registry().cardExtensions()).toBeUndefined();
  });

  it("lists module-wide declarations first, then the skills', with required false unless set", () => {
    const extensions = registry(
      [{ uri: GEO, description: 'Where the caller is', params: { precision: 'city' } }],
      [[FLIGHTS, { uri: SIGN, required: true }]],
    );
    expect(extensions.cardExtensions()).toEqual([
      { uri: GEO, description: 'Where the caller is', required: false, params: { precision: 'city' } },
      { uri: SIGN, required: true },
    ]);
  });

  it('lists a URI declared identically twice once', () => {
    const geo = { uri: GEO, description: 'd', params: { a: [1, { b: true }] } };
    // The same fields, another key order: one extension.
    const extensions = registry(
      [geo],
      [
        [FLIGHTS, { params: { a: [1, { b: true }] }, description: 'd', uri: GEO }],
        [HOTELS, geo],
      ],
    );
    expect(extensions.cardExtensions()).toEqual([{ ...geo, required: false }]);
  });

  it('keeps its own copy of params: changing the declaration later does not change the card', () => {
    const params = { level: 1 };
    const extensions = registry([{ uri: GEO, params }]);
    params.level = 2;
    expect(extensions.cardExtensions()![0].params).toEqual({ level: 1 });
  });

  it.each([
    ['required', { uri: GEO, required: true }],
    ['description', { uri: GEO, description: 'other' }],
    ['params', { uri: GEO, params: { other: true } }],
  ])('refuses a URI declared twice with another %s (ConflictingExtensionError)', (_field, second) => {
    const error = thrown(() => registry([{ uri: GEO }], [[FLIGHTS, second]]));
    expect(error).toBeInstanceOf(ConflictingExtensionError);
    expect((error as Error).message).toBe(
      A2aMessages.conflictingExtension(GEO, 'option extensions', '@A2aExtension on FlightSkill'),
    );
  });

  it.each([
    ['an empty uri', { uri: '' }],
    ['a uri with a comma', { uri: `${GEO},${TRACE}` }],
    ['a uri with a space', { uri: 'https://ext.example/a b' }],
    ['no uri', {}],
    ['a non-boolean required', { uri: GEO, required: 'yes' }],
    ['a non-string description', { uri: GEO, description: 7 }],
    ['params that are an array', { uri: GEO, params: [1] }],
    ['params that are not JSON', { uri: GEO, params: { when: new Date(0) } }],
    ['params nested deeper than the card can carry', { uri: GEO, params: nested(70) }],
  ])('refuses %s (InvalidExtensionError)', (_case, declaration) => {
    const error = thrown(() => registry([declaration as A2aExtensionDeclaration]));
    expect(error).toBeInstanceOf(InvalidExtensionError);
    expect((error as Error).message).toMatch(/^Extension declared by option extensions: /);
  });
});

describe('ExtensionRegistry: activation (spec §4.6.3)', () => {
  const extensions = registry(
    [{ uri: GEO }],
    [
      [FLIGHTS, { uri: TRACE }],
      [HOTELS, { uri: SIGN, required: true }],
    ],
  );

  it("activates the requested URIs the agent declares, in the client's order, once each", () => {
    expect(extensions.negotiate([SIGN, GEO, GEO, TRACE])).toEqual([SIGN, GEO, TRACE]);
  });

  it('ignores URIs it does not declare, other versions included (no fallback)', () => {
    expect(extensions.negotiate(['https://ext.example/geo/v2', 'https://ext.example/unknown', TRACE])).toEqual([TRACE]);
    expect(extensions.negotiate([])).toEqual([]);
  });

  it('activates nothing when the agent declares nothing', () => {
    expect(registry().negotiate([GEO])).toEqual([]);
  });

  it('refuses a call without a module-wide required extension, naming the missing ones', () => {
    const strict = registry([{ uri: GEO, required: true }, { uri: SIGN, required: true }, { uri: TRACE }]);
    const error = thrown(() => strict.negotiate([TRACE, SIGN]));
    expect(error).toBeInstanceOf(A2aError);
    expect(error).toMatchObject({
      kind: 'ExtensionSupportRequired',
      message: A2aMessages.extensionsRequired([GEO]),
      metadata: { extensions: GEO },
    });
    expect(strict.negotiate([SIGN, GEO])).toEqual([SIGN, GEO]);
  });

  it("leaves a skill's required extension to the messages routed to that skill", () => {
    expect(extensions.negotiate([GEO])).toEqual([GEO]);
    expect(() => extensions.requireForSkill('flights', [GEO])).not.toThrow();
    const error = thrown(() => extensions.requireForSkill('hotels', [GEO, TRACE]));
    expect(error).toMatchObject({
      kind: 'ExtensionSupportRequired',
      message: A2aMessages.skillExtensionsRequired('hotels', [SIGN]),
      metadata: { extensions: SIGN, skillId: 'hotels' },
    });
    expect(() => extensions.requireForSkill('hotels', [SIGN])).not.toThrow();
    expect(() => extensions.requireForSkill('unknown-skill', [])).not.toThrow();
  });

  it("hands a skill the activated extensions of the module and its own, not another skill's", () => {
    const activated = extensions.negotiate([GEO, TRACE, SIGN]);
    expect(extensions.forSkill('flights', activated)).toEqual([GEO, TRACE]);
    expect(extensions.forSkill('hotels', activated)).toEqual([GEO, SIGN]);
    expect(extensions.forSkill('undeclared', activated)).toEqual([GEO]);
    expect(extensions.forSkill('flights', [])).toEqual([]);
  });
});

describe('@A2aExtension and its accessor', () => {
  const accessor = new A2aExtensionMetadataAccessor(new Reflector());

  it('stacks: the declarations read in source order', () => {
    @A2aExtension({ uri: GEO })
    @A2aExtension({ uri: TRACE, required: true })
    class Stacked {}
    expect(accessor.extensionsOf(Stacked)).toEqual([{ uri: GEO }, { uri: TRACE, required: true }]);
  });

  it('is inherited by a subclass, and reads nothing on an undecorated class', () => {
    @A2aExtension({ uri: GEO })
    class Parent {}
    class Child extends Parent {}
    class Plain {}
    expect(accessor.extensionsOf(Child)).toEqual([{ uri: GEO }]);
    expect(accessor.extensionsOf(Plain)).toEqual([]);
  });
});

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}
