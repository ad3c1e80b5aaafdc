/**
 * Splits a text/event-stream into the `data` of its events, chunk by chunk as they arrive. Events without data
 * (heartbeat comments) yield nothing. CRLF line ends are accepted; a lone CR as line end (legal, but unused by any
 * A2A server) is not.
 */
export class SseDataReader {
  private buffer = '';

  push(chunk: string): string[] {
    this.buffer += chunk;
    if (this.buffer.includes('\r')) this.buffer = this.buffer.replace(/\r\n/g, '\n');
    const data: string[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const event = this.eventData(this.buffer.slice(0, end));
      if (event !== undefined) data.push(event);
      this.buffer = this.buffer.slice(end + 2);
    }
    return data;
  }

  private eventData(frame: string): string | undefined {
    let data: string | undefined;
    for (const line of frame.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
      data = data === undefined ? value : `${data}\n${value}`;
    }
    return data;
  }
}
