import type {
  AuthenticationInfo,
  Message,
  Part,
  SendMessageConfiguration,
  TaskPushNotificationConfig,
} from './a2a.types.js';
import { assign, type FieldReader } from './field.reader.js';

/*
 * Readers of the messages nested in requests (a2a.proto's Message, Part, SendMessageConfiguration,
 * TaskPushNotificationConfig), with pointers to the v1.0 names where a v0.3 shape is sent.
 */

const PART_CONTENT_FIELDS = ['text', 'raw', 'url', 'data'] as const;

export function readMessage(r: FieldReader): Message {
  rejectKindField(r, 'Messages');
  const message: Message = {
    messageId: r.id('messageId'),
    role: readIncomingRole(r),
    parts: r.objects('parts', { required: true, nonEmpty: true })?.map(readPart) ?? [],
  };
  assign(message, 'contextId', r.string('contextId'));
  assign(message, 'taskId', r.string('taskId'));
  assign(message, 'metadata', r.struct('metadata'));
  assign(message, 'extensions', r.stringList('extensions'));
  assign(message, 'referenceTaskIds', r.stringList('referenceTaskIds'));
  return message;
}

/** Messages reaching an agent come from the user; v0.3's lowercase role names get a pointer to the v1.0 name. */
function readIncomingRole(r: FieldReader): 'ROLE_USER' {
  const role = r.value('role');
  if (role === 'ROLE_USER') return role;
  if (role === undefined || role === 'ROLE_UNSPECIFIED') r.violation('role', 'Required: ROLE_USER');
  else if (role === 'user' || role === 'agent')
    r.violation('role', `"${role}" is a v0.3 role name; A2A v1.0 uses ROLE_USER`);
  else if (role === 'ROLE_AGENT') r.violation('role', 'A message sent to an agent must have role ROLE_USER');
  else r.violation('role', 'Must be ROLE_USER (enum values are sent by name)');
  return 'ROLE_USER';
}

function readPart(r: FieldReader): Part {
  rejectKindField(r, 'Parts');
  if (r.value('file') !== undefined) {
    r.violation(
      'file',
      'v0.3 file parts are not A2A v1.0: send the bytes as `raw` (base64) or a link as `url`, with `filename` and `mediaType` beside it',
    );
  }
  const present = PART_CONTENT_FIELDS.filter((name) => r.value(name) !== undefined);
  if (present.length !== 1) {
    r.violation(
      '',
      present.length === 0
        ? 'A part needs exactly one of text, raw, url or data'
        : `A part holds exactly one of text, raw, url or data, not ${present.join(' and ')}`,
    );
  }
  const part: Part = {};
  const text = r.string('text', { keepEmpty: true });
  if (text !== undefined) part.text = text;
  assign(part, 'raw', r.base64('raw'));
  assign(part, 'url', r.url('url'));
  assign(part, 'data', r.json('data'));
  assign(part, 'metadata', r.struct('metadata'));
  assign(part, 'filename', r.string('filename'));
  assign(part, 'mediaType', r.string('mediaType'));
  return part;
}

function rejectKindField(r: FieldReader, what: string): void {
  if (r.value('kind') !== undefined) {
    r.violation('kind', `${what} have no \`kind\` in A2A v1.0 (a v0.3 field); the field that is set tells the kind`);
  }
}

export function readConfiguration(r: FieldReader): SendMessageConfiguration {
  const configuration: SendMessageConfiguration = {};
  assign(configuration, 'acceptedOutputModes', r.stringList('acceptedOutputModes'));
  const push = r.object('taskPushNotificationConfig');
  if (push) configuration.taskPushNotificationConfig = readPushConfig(push, { taskIdRequired: false });
  assign(configuration, 'historyLength', r.integer('historyLength', { min: 0 }));
  assign(configuration, 'returnImmediately', r.boolean('returnImmediately'));
  return configuration;
}

export function readPushConfig(
  r: FieldReader,
  { taskIdRequired }: { taskIdRequired: boolean },
): TaskPushNotificationConfig {
  const config: TaskPushNotificationConfig = {
    ...tenantOf(r),
    url: r.url('url', { required: true, httpOnly: true }) ?? '',
  };
  assign(config, 'id', r.string('id'));
  if (taskIdRequired) config.taskId = r.id('taskId');
  else assign(config, 'taskId', r.string('taskId'));
  assign(config, 'token', r.string('token'));
  const auth = r.object('authentication');
  if (auth) {
    const authentication: AuthenticationInfo = { scheme: auth.id('scheme') };
    assign(authentication, 'credentials', auth.string('credentials'));
    config.authentication = authentication;
  }
  return config;
}

export function tenantOf(r: FieldReader): { tenant?: string } {
  const tenant = r.string('tenant');
  return tenant === undefined ? {} : { tenant };
}
