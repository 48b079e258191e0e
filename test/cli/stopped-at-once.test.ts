import { describe, expect, it } from 'vitest';
import { earlyArgs } from '../../src/cli/early-args.js';
import { drainTimeoutMs, resumeCommandAtStart, stoppedAtOnceNotice } from '../../src/cli/stopped-at-once.js';

describe('what a second signal says', () => {
  it('a live run with a folder names the command that resumes it', () => {
    expect(stoppedAtOnceNotice('SIGINT', true, 'engage-import resume .engage-import/runs/20261124T020000Z-ab12')).toBe(
      'stopped at once (SIGINT); continue the run with: engage-import resume .engage-import/runs/20261124T020000Z-ab12',
    );
  });

  it('a new run stopped before its folder existed says nothing was sent, and no resume', () => {
    expect(stoppedAtOnceNotice('SIGTERM', true, undefined)).toBe(
      'stopped at once (SIGTERM) before the run began; nothing was sent',
    );
  });

  it('a command that sends nothing just stops', () => {
    expect(stoppedAtOnceNotice('SIGINT', false, undefined)).toBe('stopped at once (SIGINT)');
  });

  it('a resume names the resume command before it has found its run; a new run names none', () => {
    expect(resumeCommandAtStart(earlyArgs(['resume']))).toBe('engage-import resume');
    expect(resumeCommandAtStart(earlyArgs(['import', 'job.yaml', '--resume']))).toBe('engage-import resume');
    expect(resumeCommandAtStart(earlyArgs(['import', 'job.yaml']))).toBeUndefined();
    expect(resumeCommandAtStart(earlyArgs(['validate', 'job.yaml', '--resume']))).toBeUndefined();
    // As the command's own parse reads them: an option before the command, --resume=true.
    expect(resumeCommandAtStart(earlyArgs(['--log-format', 'json', 'resume']))).toBe('engage-import resume');
    expect(resumeCommandAtStart(earlyArgs(['import', 'job.yaml', '--resume=true']))).toBe('engage-import resume');
    expect(resumeCommandAtStart(earlyArgs(['import', 'job.yaml', '--no-resume']))).toBeUndefined();
  });
});

describe('drainTimeoutMs: how long the first signal waits for the requests in flight', () => {
  it('outlasts one request (--request-timeout, default 30 s) and the alert after it (10 s), so that the run still writes its report', () => {
    expect(drainTimeoutMs(earlyArgs(['import', 'job.yaml']))).toBe(45_000);
    expect(drainTimeoutMs(earlyArgs(['import', 'job.yaml', '--request-timeout', '60']))).toBe(75_000);
    expect(drainTimeoutMs(earlyArgs(['import', 'job.yaml', '--request-timeout=90']))).toBe(105_000);
    expect(drainTimeoutMs(earlyArgs(['import', 'job.yaml', '--requestTimeout', '60']))).toBe(75_000);
    expect(drainTimeoutMs(earlyArgs(['import', 'job.yaml', '--request-timeout', '5']))).toBe(30_000);
    expect(drainTimeoutMs(earlyArgs(['import', 'job.yaml', '--request-timeout', 'x']))).toBe(45_000);
    // "No timeout": as long as a timer can wait, not a timer that fires at once.
    expect(drainTimeoutMs(earlyArgs(['import', 'job.yaml', '--request-timeout', '3000000']))).toBe(2 ** 31 - 1);
  });
});
