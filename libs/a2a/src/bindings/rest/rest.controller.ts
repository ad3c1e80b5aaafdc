import { Controller, type Type } from '@nestjs/common';

// Placeholder until the HTTP+JSON binding lands (being written now).
export function createRestController(prefix: string): Type {
  @Controller(prefix)
  class A2aRestController {}
  return A2aRestController;
}
