import type protobuf from 'protobufjs';
import type { JsonObject } from '../../../protocol/a2a.types.js';
import { messageFromJson } from './from-proto-json.js';
import { MessagePlans } from './message-plan.js';
import { Misfit } from './misfit.js';
import type { ProtoObject } from './proto-object.js';
import { messageToJson } from './to-proto-json.js';

export type { ProtoObject } from './proto-object.js';

/**
 * Converts between the ProtoJSON the engine speaks (`protocol/a2a.types.ts`) and proto-loader objects, for any message
 * of the loaded protos, from a plan of each message type computed once from its reflection. What differs between the
 * two forms:
 * - field names: lowerCamelCase in ProtoJSON (`message_id` → `messageId`), the proto's own names in proto;
 * - oneofs (Part content, SendMessageResponse, StreamResponse, SecurityScheme, OAuthFlows): both name the set member
 *   by its field, so they map field by field; presence is what tells the member;
 * - Struct / Value / ListValue are plain JSON in ProtoJSON, `{fields}` / `{string_value…}` / `{values}` in proto;
 * - Timestamp is an RFC 3339 string in ProtoJSON, `{seconds, nanos}` in proto;
 * - bytes are base64 in ProtoJSON, Buffers in proto;
 * - enums are names on both sides (proto-loader is set to `enums: String`; an unknown number passes as is, for the
 *   validators to reject);
 * - ProtoJSON leaves out empty repeated fields and maps; so does this mapper.
 */
export class ProtoJsonMapper {
  private readonly plans: MessagePlans;

  constructor(root: protobuf.Root) {
    this.plans = new MessagePlans(root);
  }

  /**
   * A decoded message as ProtoJSON. A value ProtoJSON cannot hold (a Value with no kind, a non-finite number in a
   * Value, a Timestamp out of range) is the client's error: InvalidParams naming the field.
   */
  toProtoJson(typeName: string, message: ProtoObject): JsonObject {
    const plan = this.plans.of(typeName);
    try {
      return messageToJson(plan, message) as JsonObject;
    } catch (error) {
      throw error instanceof Misfit ? error.toError(error.path()) : error;
    }
  }

  /** ProtoJSON (as the engine produces it) as a message proto-loader can encode. */
  fromProtoJson(typeName: string, json: object): ProtoObject {
    const plan = this.plans.of(typeName);
    try {
      return messageFromJson(plan, json) as ProtoObject;
    } catch (error) {
      throw error instanceof Misfit ? error.toError(error.path()) : error;
    }
  }
}
