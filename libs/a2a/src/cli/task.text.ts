import type {
  AgentCard,
  Artifact,
  ListTasksResponse,
  Message,
  Part,
  Task,
  TaskState,
  TaskStatus,
} from '../protocol/a2a.types.js';

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`: how the CLI names states to people. */
export function stateName(state: TaskState): string {
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** A part as text: text as is, data as indented JSON, files and URLs as one bracketed line. */
export function partText(part: Part): string {
  if (part.text !== undefined) return part.text;
  if (part.data !== undefined) return JSON.stringify(part.data, null, 2);
  const about = [part.mediaType, part.raw === undefined ? undefined : `${Buffer.from(part.raw, 'base64').length} bytes`]
    .filter((detail) => detail !== undefined)
    .join(', ');
  const name = part.filename ?? part.url ?? 'file';
  const url = part.url !== undefined && part.filename !== undefined ? ` ${part.url}` : '';
  return `[${part.url !== undefined ? 'url' : 'file'} ${name}${url}${about ? ` (${about})` : ''}]`;
}

/** Parts one after another: consecutive text parts run on, anything else on lines of its own. */
export function partsText(parts: readonly Part[]): string {
  let out = '';
  for (const part of parts) {
    const text = partText(part);
    if (part.text === undefined && out !== '' && !out.endsWith('\n')) out += '\n';
    out += text;
    if (part.text === undefined) out += '\n';
  }
  return out.replace(/\n$/, '');
}

/** A message's parts as text. */
export function messageText(message: Message | undefined): string {
  return message ? partsText(message.parts) : '';
}

/** `[state] message`: a status on one line, or the message's lines after it. */
export function statusText(status: TaskStatus): string {
  const message = messageText(status.message);
  return `[${stateName(status.state)}]${message ? ` ${message}` : ''}`;
}

/** An artifact under its name (or id). */
export function artifactText(artifact: Artifact): string {
  return `${artifactHeader(artifact)}\n${partsText(artifact.parts)}`;
}

/** The line that introduces an artifact. */
export function artifactHeader(artifact: Artifact): string {
  return `[${artifact.name ?? artifact.artifactId}]`;
}

/** A task for `get`, `cancel` and `send`: its ids, status and artifacts; history when asked for. */
export function taskText(task: Task): string {
  const lines = [`Task ${task.id} (context ${task.contextId})`, statusText(task.status)];
  for (const artifact of task.artifacts ?? []) lines.push(artifactText(artifact));
  if (task.history?.length) {
    lines.push('History:');
    for (const message of task.history)
      lines.push(`  ${message.role === 'ROLE_AGENT' ? 'agent' : 'user'}: ${messageText(message)}`);
  }
  return lines.join('\n');
}

/** One page of `list`: a line per task, and the token of the next page. */
export function taskListText(page: ListTasksResponse): string {
  const lines = page.tasks.map((task) =>
    `${task.id}  ${stateName(task.status.state).padEnd(14)}  ${task.contextId}  ${oneLine(messageText(task.status.message))}`.trimEnd(),
  );
  lines.push(`${page.tasks.length} of ${page.totalSize} task(s)`);
  if (page.nextPageToken) lines.push(`Next page: --page-token ${page.nextPageToken}`);
  return lines.join('\n');
}

/** The agent card for people: who, where, what it can do, what it needs. */
export function cardText(card: AgentCard): string {
  const lines = [`${card.name} (version ${card.version})`, card.description];
  if (card.provider) lines.push(`Provider: ${card.provider.organization} ${card.provider.url}`);
  lines.push('', 'Interfaces:');
  for (const face of card.supportedInterfaces)
    lines.push(`  ${face.protocolBinding.padEnd(9)} ${face.url}  (A2A ${face.protocolVersion})`);
  const capabilities = Object.entries(card.capabilities)
    .filter(([, on]) => on === true)
    .map(([name]) => name);
  lines.push('', `Capabilities: ${capabilities.length > 0 ? capabilities.join(', ') : 'none'}`);
  lines.push(`Input: ${card.defaultInputModes.join(', ')}   Output: ${card.defaultOutputModes.join(', ')}`);
  const schemes = Object.entries(card.securitySchemes ?? {});
  if (schemes.length > 0) {
    lines.push('', 'Security:');
    for (const [name, scheme] of schemes) lines.push(`  ${name}: ${schemeText(scheme)}`);
  }
  lines.push('', 'Skills:');
  for (const skill of card.skills) {
    lines.push(`  ${skill.id}: ${skill.name}`, `    ${skill.description}`);
    if (skill.tags.length > 0) lines.push(`    tags: ${skill.tags.join(', ')}`);
    for (const example of skill.examples ?? []) lines.push(`    e.g. ${example}`);
  }
  return lines.join('\n');
}

function schemeText(scheme: NonNullable<AgentCard['securitySchemes']>[string]): string {
  if (scheme.apiKeySecurityScheme)
    return `API key in ${scheme.apiKeySecurityScheme.location} "${scheme.apiKeySecurityScheme.name}" (--api-key)`;
  if (scheme.httpAuthSecurityScheme) {
    const http = scheme.httpAuthSecurityScheme;
    return `HTTP ${http.scheme}${http.bearerFormat ? ` (${http.bearerFormat})` : ''}${/^bearer$/i.test(http.scheme) ? ' (--bearer)' : ''}`;
  }
  if (scheme.oauth2SecurityScheme) return 'OAuth 2.0 (a token with --bearer)';
  if (scheme.openIdConnectSecurityScheme)
    return `OpenID Connect ${scheme.openIdConnectSecurityScheme.openIdConnectUrl}`;
  return 'mutual TLS';
}

/** The first line of `text`, for places with room for one. */
export function oneLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
