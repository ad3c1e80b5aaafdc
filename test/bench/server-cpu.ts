import { readFileSync } from 'node:fs';

/**
 * utime + stime of a process in clock ticks, from `/proc/<pid>/stat`. Counts every thread of the process (GC, libuv
 * pool), which is what a request really costs the server. The command name may contain spaces and parentheses, so the
 * fields are counted from the last `)`: utime and stime are fields 14 and 15 of the file, 12th and 13th after it.
 */
export function serverCpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}
