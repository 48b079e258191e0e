import { createCsvFileWriter } from './_csv-file-writer.js';
import { neutraliseFormula } from './neutralise-formula.js';
import { REPORT_COLUMNS, type ReportLine } from './report-line.js';

export interface ReportWriter {
  /** A promise only when the caller must wait for the file (see CsvFileWriter). */
  write(line: ReportLine): Promise<void> | undefined;
  /** `keep: false`: the run failed part-way; the previous report stays. */
  close(keep?: boolean): Promise<void>;
}

/** The report CSV: one line per input record, streamed, every text cell neutralised against formulas. */
export function createReportWriter(path: string): ReportWriter {
  const csv = createCsvFileWriter(path, { header: REPORT_COLUMNS });
  return {
    // `line` and `http_status` are non-negative integers, `resource` and `status` words of a closed
    // list: none can start a formula. The other cells hold text from the file or the API.
    write: (l) =>
      csv.write([
        neutraliseFormula(l.file),
        String(l.line),
        l.resource,
        neutraliseFormula(l.key),
        l.status,
        l.http_status === undefined ? '' : String(l.http_status),
        l.id === undefined ? '' : neutraliseFormula(l.id),
        l.message === undefined ? '' : neutraliseFormula(l.message),
      ]),
    close: (keep) => csv.close(keep),
  };
}
