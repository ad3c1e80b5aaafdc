import type { Artifact, StreamResponse, TaskStatus } from '../protocol/a2a.types.js';
import { artifactHeader, messageText, oneLine, partsText, partText, statusText } from './task.text.js';

/** Where the display writes: a terminal (`isTTY`, `columns`) or a pipe or file. */
export interface DisplayOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

// ANSI: carriage return, cursor up n rows, erase to the end of the screen.
const CR = '\r';
const up = (rows: number) => (rows > 0 ? `\x1b[${rows}A` : '');
const ERASE_DOWN = '\x1b[J';

/**
 * The progress of a stream for people. Artifact text is written as it arrives, appended chunks running on. On a
 * terminal the task's status is one line under that text, redrawn in place as the state changes (the text's
 * unfinished last line is redrawn with it, so chunks keep running on above the status); elsewhere each new status is
 * a line of its own. `finish()` leaves the last status as a line.
 */
export class StreamDisplay {
  private status: TaskStatus | undefined;
  /** The artifact text after the last newline written. */
  private partial = '';
  /** Terminal rows drawn under the finished lines (the partial line and the status), the cursor on the last. */
  private liveRows = 0;
  private lastStatusLine = '';
  private artifactId: string | undefined;
  private readonly shownArtifacts = new Set<string>();

  constructor(private readonly out: DisplayOutput) {}

  private get live(): boolean {
    return this.out.isTTY === true;
  }

  /** Shows one event of the stream. */
  show(event: StreamResponse): void {
    if ('task' in event) {
      for (const artifact of event.task.artifacts ?? []) {
        if (this.shownArtifacts.has(artifact.artifactId)) continue;
        this.startArtifact(artifact);
        this.append(`${partsText(artifact.parts)}\n`);
      }
      this.setStatus(event.task.status);
    } else if ('statusUpdate' in event) {
      this.setStatus(event.statusUpdate.status);
    } else if ('artifactUpdate' in event) {
      const { artifact, append, lastChunk } = event.artifactUpdate;
      if (!append || this.artifactId !== artifact.artifactId) this.startArtifact(artifact);
      for (const part of artifact.parts) {
        if (part.text !== undefined) this.append(part.text);
        else this.append(`${this.partial === '' ? '' : '\n'}${partText(part)}\n`);
      }
      if (lastChunk) this.endLine();
    } else {
      this.endLine();
      this.append(`${messageText(event.message)}\n`);
    }
  }

  /** Ends the live part: the text's last line is finished and the last status stays as a line. */
  finish(): void {
    this.erase();
    if (this.partial !== '') this.out.write(`${this.partial}\n`);
    this.partial = '';
    if (this.live && this.status) this.out.write(`${statusText(this.status)}\n`);
    this.status = undefined;
    this.lastStatusLine = '';
  }

  private startArtifact(artifact: Artifact): void {
    this.endLine();
    this.artifactId = artifact.artifactId;
    this.shownArtifacts.add(artifact.artifactId);
    this.append(`${artifactHeader(artifact)}\n`);
  }

  private endLine(): void {
    if (this.partial !== '') this.append('\n');
  }

  private setStatus(status: TaskStatus): void {
    this.status = status;
    if (this.live) {
      this.erase();
      this.draw();
      return;
    }
    const line = statusText(status);
    if (line === this.lastStatusLine) return;
    this.lastStatusLine = line;
    this.endLine();
    this.out.write(`${line}\n`);
  }

  /** Writes artifact text: the finished lines for good, the unfinished one (on a terminal) redrawn with the status. */
  private append(text: string): void {
    if (!this.live) {
      this.out.write(text);
      this.partial = (this.partial + text).slice((this.partial + text).lastIndexOf('\n') + 1);
      return;
    }
    this.erase();
    const all = this.partial + text;
    const end = all.lastIndexOf('\n') + 1;
    if (end > 0) this.out.write(all.slice(0, end));
    this.partial = all.slice(end);
    this.draw();
  }

  private draw(): void {
    const columns = Math.max(this.out.columns ?? 80, 10);
    let rows = 0;
    let text = '';
    if (this.partial !== '') {
      text += this.partial;
      rows += Math.max(1, Math.ceil(this.partial.length / columns));
    }
    if (this.status) {
      text += `${this.partial === '' ? '' : '\n'}${oneLine(statusText(this.status)).slice(0, columns - 1)}`;
      rows += 1;
    }
    this.out.write(text);
    this.liveRows = rows;
  }

  private erase(): void {
    if (!this.live || this.liveRows === 0) return;
    this.out.write(`${CR}${up(this.liveRows - 1)}${ERASE_DOWN}`);
    this.liveRows = 0;
  }
}
