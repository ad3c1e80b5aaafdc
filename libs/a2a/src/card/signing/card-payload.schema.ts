/**
 * The AgentCard's messages as the proto declares them (a2a.proto, lf.a2a.v1), reduced to what the signed payload
 * depends on: each field's JSON name, type, shape and presence. `signatures` is absent: it is never signed (§8.4.1).
 */

/**
 * When a present field is signed: `required` (REQUIRED) and `optional` (proto3 `optional`, or a message field) even at
 * their default in the strict payload, and an `optional` bool even when false in the SDK's; `implicit` (the rest) only
 * when not the default.
 */
export type FieldPresence = 'required' | 'optional' | 'implicit';

export interface FieldSchema {
  /** The ProtoJSON name; readers also take the proto name (`snake_case`), as ProtoJSON parsers and the SDK do. */
  readonly name: string;
  readonly protoName: string;
  /** `struct` is google.protobuf.Struct: free-form JSON, copied as is. */
  readonly type: 'string' | 'bool' | 'struct' | MessageSchema;
  readonly shape: 'single' | 'repeated' | 'map';
  readonly presence: FieldPresence;
  /** Members of one oneof: only the first one set counts. */
  readonly oneof?: string;
}

export type MessageSchema = readonly FieldSchema[];

type FieldType = FieldSchema['type'];

function field(
  name: string,
  type: FieldType,
  presence: FieldPresence,
  shape: FieldSchema['shape'] = 'single',
  oneof?: string,
): FieldSchema {
  return {
    name,
    protoName: name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
    type,
    shape,
    presence,
    oneof,
  };
}

const required = (name: string, type: FieldType = 'string', shape?: FieldSchema['shape']) =>
  field(name, type, 'required', shape);
const optional = (name: string, type: FieldType = 'string') => field(name, type, 'optional');
const implicit = (name: string, type: FieldType = 'string', shape?: FieldSchema['shape']) =>
  field(name, type, 'implicit', shape);
const oneofMember = (oneof: string, name: string, type: MessageSchema) =>
  field(name, type, 'optional', 'single', oneof);

const AGENT_INTERFACE: MessageSchema = [
  required('url'),
  required('protocolBinding'),
  implicit('tenant'),
  required('protocolVersion'),
];

const AGENT_PROVIDER: MessageSchema = [required('url'), required('organization')];

const AGENT_EXTENSION: MessageSchema = [
  implicit('uri'),
  implicit('description'),
  implicit('required', 'bool'),
  optional('params', 'struct'),
];

const AGENT_CAPABILITIES: MessageSchema = [
  optional('streaming', 'bool'),
  optional('pushNotifications', 'bool'),
  implicit('extensions', AGENT_EXTENSION, 'repeated'),
  optional('extendedAgentCard', 'bool'),
];

const STRING_LIST: MessageSchema = [implicit('list', 'string', 'repeated')];

const SECURITY_REQUIREMENT: MessageSchema = [implicit('schemes', STRING_LIST, 'map')];

const AGENT_SKILL: MessageSchema = [
  required('id'),
  required('name'),
  required('description'),
  required('tags', 'string', 'repeated'),
  implicit('examples', 'string', 'repeated'),
  implicit('inputModes', 'string', 'repeated'),
  implicit('outputModes', 'string', 'repeated'),
  implicit('securityRequirements', SECURITY_REQUIREMENT, 'repeated'),
];

const scopes = (presence: FieldPresence) => field('scopes', 'string', presence, 'map');

const OAUTH_FLOWS: MessageSchema = [
  oneofMember('flow', 'authorizationCode', [
    required('authorizationUrl'),
    required('tokenUrl'),
    implicit('refreshUrl'),
    scopes('required'),
    implicit('pkceRequired', 'bool'),
  ]),
  oneofMember('flow', 'clientCredentials', [required('tokenUrl'), implicit('refreshUrl'), scopes('required')]),
  oneofMember('flow', 'implicit', [implicit('authorizationUrl'), implicit('refreshUrl'), scopes('implicit')]),
  oneofMember('flow', 'password', [implicit('tokenUrl'), implicit('refreshUrl'), scopes('implicit')]),
  oneofMember('flow', 'deviceCode', [
    required('deviceAuthorizationUrl'),
    required('tokenUrl'),
    implicit('refreshUrl'),
    scopes('required'),
  ]),
];

const SECURITY_SCHEME: MessageSchema = [
  oneofMember('scheme', 'apiKeySecurityScheme', [implicit('description'), required('location'), required('name')]),
  oneofMember('scheme', 'httpAuthSecurityScheme', [
    implicit('description'),
    required('scheme'),
    implicit('bearerFormat'),
  ]),
  oneofMember('scheme', 'oauth2SecurityScheme', [
    implicit('description'),
    required('flows', OAUTH_FLOWS),
    implicit('oauth2MetadataUrl'),
  ]),
  oneofMember('scheme', 'openIdConnectSecurityScheme', [implicit('description'), required('openIdConnectUrl')]),
  oneofMember('scheme', 'mtlsSecurityScheme', [implicit('description')]),
];

/** The AgentCard without `signatures`. */
export const AGENT_CARD_SCHEMA: MessageSchema = [
  required('name'),
  required('description'),
  required('supportedInterfaces', AGENT_INTERFACE, 'repeated'),
  optional('provider', AGENT_PROVIDER),
  required('version'),
  optional('documentationUrl'),
  required('capabilities', AGENT_CAPABILITIES),
  implicit('securitySchemes', SECURITY_SCHEME, 'map'),
  implicit('securityRequirements', SECURITY_REQUIREMENT, 'repeated'),
  required('defaultInputModes', 'string', 'repeated'),
  required('defaultOutputModes', 'string', 'repeated'),
  required('skills', AGENT_SKILL, 'repeated'),
  optional('iconUrl'),
];
