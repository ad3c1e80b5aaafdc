// The inspector page: the agent's card, a composer, the current task's live timeline, and the task list.
import { A2aTransport, CREDENTIAL_COOKIE, storedCredential } from './a2a-transport.js';
import { $, element, shortState } from './dom.js';
import { schemaProblems } from './schema-checks.js';
import { bindTaskList } from './task-list.js';

const SKILL_INPUT_SCHEMA_EXTENSION = 'https://nestjs-a2a.dev/extensions/skill-input-schema/v1';
const SKILL_METADATA_KEY = 'nestjs-a2a/skillId';
const TERMINAL = ['COMPLETED', 'FAILED', 'CANCELED', 'REJECTED'];

const state = { card: undefined, schemas: {}, task: undefined, stream: undefined, artifacts: new Map() };

const textOf = (parts) =>
  (parts ?? [])
    .map(
      (part) => part.text ?? (part.data !== undefined ? JSON.stringify(part.data) : (part.url ?? part.filename ?? '')),
    )
    .join('');

function showError(error) {
  $('page-error').textContent = error ? String(error.message ?? error) : '';
}

function transport() {
  const binding = $('binding').value;
  const entry = state.card.supportedInterfaces.find((item) => item.protocolBinding === binding);
  return new A2aTransport(binding, new URL(entry.url, location.origin).pathname);
}

// --- The card ------------------------------------------------------------------------------------------------------

function renderCard(card) {
  $('agent-name').textContent = `${card.name}: A2A inspector`;
  $('card-description').textContent = card.description;
  const facts = {
    Version: card.version,
    Streaming: card.capabilities?.streaming ? 'yes' : 'no',
    'Push notifications': card.capabilities?.pushNotifications ? 'yes' : 'no',
    Signature: card.signatures?.length ? `present (${card.signatures.length})` : 'absent',
  };
  for (const [name, value] of Object.entries(facts)) $('card-facts').append(element('dt', name), element('dd', value));
  for (const item of card.supportedInterfaces ?? [])
    $('card-interfaces').append(element('li', `${item.protocolBinding} ${item.protocolVersion ?? ''} ${item.url}`));
  const schemes = Object.entries(card.securitySchemes ?? {});
  if (schemes.length === 0) $('card-security').append(element('li', 'none: anonymous callers'));
  for (const [name, scheme] of schemes) $('card-security').append(element('li', `${name}: ${JSON.stringify(scheme)}`));
  const extensions = card.capabilities?.extensions ?? [];
  if (extensions.length === 0) $('card-extensions').append(element('li', 'none'));
  for (const extension of extensions)
    $('card-extensions').append(element('li', `${extension.uri}${extension.required ? ' (required)' : ''}`));
  state.schemas = extensions.find((extension) => extension.uri === SKILL_INPUT_SCHEMA_EXTENSION)?.params ?? {};
  for (const skill of card.skills ?? []) {
    const item = element('li');
    item.append(element('strong', skill.name), element('span', ` (${skill.id}): ${skill.description}`));
    if (state.schemas[skill.id]) {
      const schema = element('details');
      schema.append(
        element('summary', 'Input schema'),
        element('pre', JSON.stringify(state.schemas[skill.id], null, 2)),
      );
      item.append(schema);
    }
    $('card-skills').append(item);
    $('skill').append(element('option', skill.name, { value: skill.id }));
  }
  for (const binding of ['JSONRPC', 'HTTP+JSON']) {
    if (card.supportedInterfaces?.some((item) => item.protocolBinding === binding))
      $('binding').append(element('option', binding === 'JSONRPC' ? 'JSON-RPC' : binding, { value: binding }));
  }
}

// --- The composer --------------------------------------------------------------------------------------------------

/** The data part as typed, and what the skill's input schema says of it. */
function composedData() {
  const raw = $('message-data').value.trim();
  if (!raw) return { problems: [] };
  let data;
  try {
    data = JSON.parse(raw);
  } catch (error) {
    return { problems: [`data: not JSON (${error.message})`], invalid: true };
  }
  return { data, problems: schemaProblems(state.schemas[$('skill').value], data) };
}

function renderChecks() {
  const schema = state.schemas[$('skill').value];
  $('input-schema-box').hidden = !schema;
  $('input-schema').textContent = schema ? JSON.stringify(schema, null, 2) : '';
  const { problems } = composedData();
  $('schema-checks').replaceChildren(...problems.map((problem) => element('li', problem)));
}

async function send(event) {
  event.preventDefault();
  const { data, invalid } = composedData();
  if (invalid) return;
  const parts = [];
  const text = $('message-text').value;
  if (text) parts.push({ text });
  if (data !== undefined) parts.push({ data });
  if (parts.length === 0) return showError(new Error('Type a text or a data part first.'));
  const followUp = $('follow-up').checked && state.task;
  const skill = $('skill').value;
  await sendMessage(parts, followUp ? state.task : undefined, skill ? { [SKILL_METADATA_KEY]: skill } : undefined);
}

async function sendMessage(parts, task, metadata) {
  showError();
  const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, metadata };
  if (task) Object.assign(message, { taskId: task.id, contextId: task.contextId });
  else resetTask();
  addEntry('sent', `you: ${textOf(parts)}`);
  if (!state.card.capabilities?.streaming) {
    const result = await transport().call('SendMessage', { message }).catch(showError);
    if (result) onEvent(result);
    return;
  }
  await follow('SendStreamingMessage', { message });
}

// --- The task and its timeline -------------------------------------------------------------------------------------

function resetTask() {
  stopStream();
  state.task = undefined;
  state.artifacts.clear();
  $('timeline').replaceChildren();
  $('artifacts').replaceChildren();
  renderTask();
}

function stopStream() {
  state.stream?.abort();
  state.stream = undefined;
}

/** Runs a streaming operation, each event into the timeline, until it ends or another one replaces it. */
async function follow(method, params) {
  stopStream();
  const controller = (state.stream = new AbortController());
  try {
    await transport().stream(method, params, onEvent, controller.signal);
    if (state.stream === controller) addEntry('end', 'stream ended');
  } catch (error) {
    if (!controller.signal.aborted) showError(error);
  } finally {
    if (state.stream === controller) state.stream = undefined;
    renderTask();
  }
}

function onEvent(event) {
  if (event.task) {
    setTask(event.task);
    const said = textOf(event.task.status?.message?.parts);
    addEntry('task', `task ${shortState(event.task.status?.state)}${said ? `: ${said}` : ''}`);
    for (const artifact of event.task.artifacts ?? []) showArtifact(artifact, false);
  } else if (event.message) {
    addEntry('message', `agent: ${textOf(event.message.parts)}`);
  } else if (event.statusUpdate) {
    const { status } = event.statusUpdate;
    setTask({ ...(state.task ?? {}), id: event.statusUpdate.taskId, contextId: event.statusUpdate.contextId, status });
    const said = textOf(status.message?.parts);
    addEntry('status', `status ${shortState(status.state)}${said ? `: ${said}` : ''}`);
  } else if (event.artifactUpdate) {
    const { artifact, append, lastChunk } = event.artifactUpdate;
    showArtifact(artifact, append);
    const name = artifact.name ?? artifact.artifactId;
    addEntry(
      'artifact',
      `artifact ${name}${append ? ' +' : ''}: ${textOf(artifact.parts)}${lastChunk ? ' (last)' : ''}`,
    );
  }
  renderTask();
}

function setTask(task) {
  state.task = task;
}

function showArtifact(artifact, append) {
  let shown = state.artifacts.get(artifact.artifactId);
  if (!shown) {
    const item = element('li');
    const body = element('pre', '', { 'aria-label': `Artifact ${artifact.name ?? artifact.artifactId}` });
    item.append(element('strong', artifact.name ?? artifact.artifactId), body);
    $('artifacts').append(item);
    state.artifacts.set(artifact.artifactId, (shown = body));
  }
  shown.textContent = append ? shown.textContent + textOf(artifact.parts) : textOf(artifact.parts);
}

function addEntry(kind, text) {
  $('timeline').append(element('li', text, { 'data-kind': kind }));
}

function renderTask() {
  const task = state.task;
  const current = shortState(task?.status?.state);
  $('task-id').textContent = task?.id ?? 'none';
  $('context-id').textContent = task?.contextId ?? '';
  $('task-state').textContent = current;
  $('cancel').disabled = !task || TERMINAL.includes(current);
  $('resubscribe').disabled = !task || TERMINAL.includes(current);
  const asking = current === 'INPUT_REQUIRED' || current === 'AUTH_REQUIRED';
  $('answer-form').hidden = !asking;
  $('answer-question').textContent = asking ? textOf(task.status.message?.parts) : '';
}

async function answer(event) {
  event.preventDefault();
  const text = $('answer').value;
  if (!text || !state.task) return;
  $('answer').value = '';
  await sendMessage([{ text }], state.task);
}

async function cancel() {
  showError();
  const task = await transport().call('CancelTask', { id: state.task.id }).catch(showError);
  if (!task) return;
  setTask(task);
  addEntry('status', `canceled: ${shortState(task.status?.state)}`);
  renderTask();
}

async function openTask(id) {
  resetTask();
  const task = await transport().call('GetTask', { id }).catch(showError);
  if (!task) return;
  onEvent({ task });
  if (!TERMINAL.includes(shortState(task.status?.state))) await follow('SubscribeToTask', { id });
}

// --- Start ---------------------------------------------------------------------------------------------------------

function signOut() {
  const path = new URL(document.baseURI).pathname.replace(/\/$/, '');
  document.cookie = `${CREDENTIAL_COOKIE}=; path=${path}; max-age=0; SameSite=Strict`;
  location.reload();
}

async function start() {
  $('sign-out').hidden = !storedCredential();
  $('sign-out').addEventListener('click', signOut);
  const response = await fetch('/.well-known/agent-card.json', { headers: { 'A2A-Version': '1.0' } });
  state.card = await response.json();
  renderCard(state.card);
  $('skill').addEventListener('change', renderChecks);
  $('message-data').addEventListener('input', renderChecks);
  $('composer-form').addEventListener('submit', send);
  $('answer-form').addEventListener('submit', answer);
  $('cancel').addEventListener('click', cancel);
  $('resubscribe').addEventListener('click', () => follow('SubscribeToTask', { id: state.task.id }));
  renderChecks();
  renderTask();
  bindTaskList((method, params) => transport().call(method, params), openTask);
  document.body.dataset.ready = 'true';
}

start().catch(showError);
