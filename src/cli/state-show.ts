/** What `state show` prints: the state's file and size, its rows per resource, the last run applied. */
const n = (v: number) => v.toLocaleString('en-US');

export function formatShow(
  s: {
    job: string;
    file: string;
    bytes: number;
    resources: readonly { resource: string; kind: string; count: number; inDoubt?: number }[];
    lastRun: { runId: string; at: string } | null;
    /** The latest run applied, which may have accepted nothing (every row unchanged). */
    latestRun: string | null;
  },
  show: (p: string) => string,
): string {
  const lines = [`Sync state of ${show(s.job)}: ${s.file}, ${formatBytes(s.bytes)}`];
  if (s.resources.length === 0) lines.push('  empty: the next incremental run sends every row');
  for (const r of s.resources)
    lines.push(
      `  ${r.resource.padEnd(16)}  ${n(r.count).padStart(12)} ${r.kind === 'entity' ? 'keys' : 'events'}${r.inDoubt === undefined ? '' : `, ${n(r.inDoubt)} in doubt`}`,
    );
  lines.push(lastRunLine(s.lastRun, s.latestRun));
  return `${lines.join('\n')}\n`;
}

/** A night that accepted nothing (every row unchanged) is a run all the same: a cron job that stopped looks different. */
function lastRunLine(last: { runId: string; at: string } | null, latest: string | null): string {
  if (last === null) return latest === null ? 'Last run: none applied' : `Last run: ${latest}, which accepted no row`;
  if (latest === null || latest <= last.runId) return `Last run: ${last.runId} (last accepted row ${last.at})`;
  return `Last run: ${latest}, which accepted no row; last accepted row ${last.at}, by run ${last.runId}`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
