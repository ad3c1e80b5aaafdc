/**
 * A terminal screen for the display tests: it interprets what the CLI's live display writes (text, `\n`, `\r`, cursor
 * up `ESC[nA`, erase below `ESC[J`) with line wrapping at `columns`, so a test reads what a person would see rather
 * than the bytes written.
 */
export class VirtualTerminal {
  readonly isTTY = true;
  private readonly rows: string[][] = [[]];
  private row = 0;
  private column = 0;

  constructor(readonly columns: number) {}

  write(text: string): boolean {
    for (let i = 0; i < text.length; i++) {
      const char = text[i];
      if (char === '\x1b') {
        const match = /^\x1b\[(\d*)([AJ])/.exec(text.slice(i));
        if (!match) throw new Error(`unexpected escape sequence at ${JSON.stringify(text.slice(i, i + 6))}`);
        if (match[2] === 'A') this.row = Math.max(0, this.row - Number(match[1] || '1'));
        else this.eraseBelow();
        i += match[0].length - 1;
      } else if (char === '\n') {
        this.row++;
        this.column = 0;
      } else if (char === '\r') {
        this.column = 0;
      } else {
        // Pending wrap: a character after the last column goes to the next row.
        if (this.column === this.columns) {
          this.row++;
          this.column = 0;
        }
        (this.rows[this.row] ??= [])[this.column++] = char;
      }
      while (this.rows.length <= this.row) this.rows.push([]);
    }
    return true;
  }

  /** The screen's lines, trailing spaces and empty trailing rows dropped. */
  lines(): string[] {
    const lines = this.rows.map((cells) =>
      Array.from(cells, (cell) => cell ?? ' ')
        .join('')
        .trimEnd(),
    );
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines;
  }

  private eraseBelow(): void {
    this.rows[this.row] = (this.rows[this.row] ?? []).slice(0, this.column);
    this.rows.length = this.row + 1;
  }
}
