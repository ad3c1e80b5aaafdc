import protobuf from 'protobufjs';

const STRUCT = '.google.protobuf.Struct';
const VALUE = '.google.protobuf.Value';
const LIST_VALUE = '.google.protobuf.ListValue';
const TIMESTAMP = '.google.protobuf.Timestamp';

/** The well-known types whose ProtoJSON form is not an object of their fields. */
export type WellKnown = 'struct' | 'value' | 'list' | 'timestamp' | undefined;

/**
 * What the mapper needs of one message type, worked out once from its reflection so that no message pays for name
 * conversions, type lookups or `fieldsArray` getters again.
 */
export interface MessagePlan {
  readonly wellKnown: WellKnown;
  readonly fields: FieldPlan[];
}

export interface FieldPlan {
  readonly protoName: string;
  readonly jsonName: string;
  /** How the field appears in an error path: `.jsonName`. */
  readonly segment: string;
  readonly map: boolean;
  readonly repeated: boolean;
  /** The field's message type; undefined for scalars and enums (enum names pass through unchanged). */
  readonly message: MessagePlan | undefined;
  readonly bytes: boolean;
  /** A google.protobuf.Value field, where JSON null is a value rather than "unset". */
  readonly keepsNull: boolean;
}

/** The plan of each message type of `root`, made at its first use. */
export class MessagePlans {
  private readonly byName = new Map<string, MessagePlan>();
  private readonly byType = new Map<protobuf.Type, MessagePlan>();

  constructor(private readonly root: protobuf.Root) {}

  of(typeName: string): MessagePlan {
    let plan = this.byName.get(typeName);
    if (!plan) {
      plan = this.planOf(this.root.lookupType(typeName));
      this.byName.set(typeName, plan);
    }
    return plan;
  }

  /** Registered before its fields are planned, so recursive types (Struct ⇄ Value) end. */
  private planOf(type: protobuf.Type): MessagePlan {
    const known = this.byType.get(type);
    if (known) return known;
    const plan: MessagePlan = { wellKnown: wellKnownOf(type.fullName), fields: [] };
    this.byType.set(type, plan);
    for (const field of type.fieldsArray) {
      const resolved = field.resolve().resolvedType;
      const name = jsonName(field.name);
      plan.fields.push({
        protoName: field.name,
        jsonName: name,
        segment: `.${name}`,
        map: field.map,
        repeated: field.repeated,
        message: resolved instanceof protobuf.Type ? this.planOf(resolved) : undefined,
        bytes: field.type === 'bytes',
        keepsNull: resolved?.fullName === VALUE,
      });
    }
    return plan;
  }
}

function wellKnownOf(fullName: string): WellKnown {
  switch (fullName) {
    case STRUCT:
      return 'struct';
    case VALUE:
      return 'value';
    case LIST_VALUE:
      return 'list';
    case TIMESTAMP:
      return 'timestamp';
  }
  return undefined;
}

/** ProtoJSON's default field name (protoc's `json_name`): each `_x` becomes `X`. */
function jsonName(protoName: string): string {
  return protoName.replace(/_(.)/g, (_, next: string) => next.toUpperCase());
}
