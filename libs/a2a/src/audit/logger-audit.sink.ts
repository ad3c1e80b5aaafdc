import { Logger } from '@nestjs/common';
import type { A2aAuditRecord, A2aAuditSink } from './a2a-audit.sink.js';

/**
 * The audit sink of `audit: true`: one line per record on Nest's logger (context `A2aAudit`), the record as JSON, so a
 * log pipeline can parse it. No content, only ids, roles, part kinds and digests, unless `includeContent` is set.
 */
export class A2aLoggerAuditSink implements A2aAuditSink {
  private readonly logger = new Logger('A2aAudit');

  constructor(readonly includeContent = false) {}

  /** Logs the record as one JSON line. */
  record(record: A2aAuditRecord): void {
    this.logger.log(JSON.stringify(record));
  }
}
