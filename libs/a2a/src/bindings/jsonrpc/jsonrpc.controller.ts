import { Controller, type Type } from '@nestjs/common';

// Placeholder until the JSON-RPC binding lands (being written now).
export function createJsonRpcController(path: string): Type {
  @Controller(path)
  class A2aJsonRpcController {}
  return A2aJsonRpcController;
}
