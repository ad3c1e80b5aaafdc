import { Injectable, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { A2A_EXTENSION_METADATA } from '../a2a.constants.js';
import type { A2aExtensionDeclaration } from './a2a-extension.decorator.js';

/** Reads what `@A2aExtension` wrote on a class. */
@Injectable()
export class A2aExtensionMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The class's declarations in source order (a subclass inherits its parent's); none when undecorated. */
  extensionsOf(target: Type | Function): readonly A2aExtensionDeclaration[] {
    return this.reflector.get<A2aExtensionDeclaration[] | undefined>(A2A_EXTENSION_METADATA, target) ?? [];
  }
}
