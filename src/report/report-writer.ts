import { createCsvFileWriter } from './_csv-file-writer.js';
import { neutraliseFormula } from './neutralise-formula.js';
import { REPORT_COLUMNS, type ReportLine } from './report-line.js';

export interface ReportWriter {
  /** A promise only when the caller must wait for the file (see CsvFileWriter). */
  write(line: ReportLine): Promise<void> | undefined;
  close(): Promise<void>;
}

/** The report CSV: one line per input record, streamed, every cell neutralised against formulas. */
export function createReportWriter(path: string): ReportWriter {
  const csv = createCsvFileWriter(path, { header: REPORT_COLUMNS });
  return {
    write: (l) =>
      csv.write(
        [l.file, String(l.line), l.resource, l.key, l.status, l.http_status === undefined ? '' : String(l.http_status), l.id ?? '', l.message ?? ''].map(
          neutraliseFormula,
        ),
      ),
    close: () => csv.close(),
  };
}
