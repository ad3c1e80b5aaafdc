/**
 * What the bench asks of every server (the conformance agent's `echo` and `stream` behaviours) and the full checks of
 * the answers, shared by all bindings once their answers are in ProtoJSON form.
 */

/** Parsed JSON of a server under test, checked field by field. */
export type Json = Record<string, any>;

/** The text the unary measurements echo; `echo` completes a task with this text as its one artifact. */
export const ECHO_TEXT = 'hello';
export const ECHO_COMMAND = `echo ${ECHO_TEXT}`;

export function streamCommand(chunks: number): string {
  return `stream ${chunks}`;
}

/** The full check that runs once per measurement before the timed loop; returns the task id. */
export function checkCompletedEchoTask(task: Json | undefined): string {
  if (task?.status?.state !== 'TASK_STATE_COMPLETED') {
    throw new Error(`expected a completed task, got ${JSON.stringify(task).slice(0, 200)}`);
  }
  const text = task.artifacts?.[0]?.parts?.[0]?.text;
  if (text !== ECHO_TEXT) throw new Error(`expected the artifact text "${ECHO_TEXT}", got ${JSON.stringify(text)}`);
  return task.id as string;
}

/**
 * The full check of one stream, run once per measurement: `chunks` artifact chunks `chunk 1…n` and a final
 * COMPLETED status.
 */
export function checkStreamEvents(events: Json[], chunks: number): void {
  const chunkTexts = events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate.artifact?.parts?.[0]?.text);
  if (chunkTexts.length !== chunks) throw new Error(`expected ${chunks} artifact chunks, got ${chunkTexts.length}`);
  if (chunkTexts[0] !== 'chunk 1' || chunkTexts[chunks - 1] !== `chunk ${chunks}`) {
    throw new Error(
      `unexpected chunk texts ${JSON.stringify(chunkTexts[0])} … ${JSON.stringify(chunkTexts[chunks - 1])}`,
    );
  }
  const last = events[events.length - 1];
  const finalState = last?.statusUpdate?.status?.state ?? last?.task?.status?.state;
  if (finalState !== 'TASK_STATE_COMPLETED') throw new Error(`stream ended with ${JSON.stringify(last).slice(0, 200)}`);
}
