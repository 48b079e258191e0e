import { describe, expect, it } from 'vitest';
import { resumeCommand } from '../../src/pipeline/resume-command.js';

describe('resumeCommand: what a stop prints to continue the run, runnable as printed', () => {
  const run = '/jobs/.engage-import/runs/20261124T020000Z-ab12';
  it('names the run folder, and keeps a report or rejects path that is not the default', () => {
    expect(resumeCommand(run, { report: '/jobs/out/report.csv' }, '/jobs')).toBe(
      'engage-import resume .engage-import/runs/20261124T020000Z-ab12',
    );
    expect(resumeCommand(run, { report: '/jobs/out/night-1.csv', rejects: '/jobs/fix.csv' }, '/jobs')).toBe(
      'engage-import resume .engage-import/runs/20261124T020000Z-ab12 --report out/night-1.csv --rejects fix.csv',
    );
  });

  it("quotes a path with a space or a quote, and gives one that starts with '-' as ./-…", () => {
    expect(resumeCommand(run, { report: "/jobs/night's report.csv" }, '/jobs')).toBe(
      `engage-import resume .engage-import/runs/20261124T020000Z-ab12 --report 'night'\\''s report.csv'`,
    );
    expect(resumeCommand(run, { report: '/jobs/-dash.csv' }, '/jobs')).toBe(
      'engage-import resume .engage-import/runs/20261124T020000Z-ab12 --report ./-dash.csv',
    );
  });

  it('keeps the key file the run read its key from, by its path', () => {
    expect(resumeCommand(run, { apiKeyFile: '/secrets/engage key' }, '/jobs')).toBe(
      `engage-import resume .engage-import/runs/20261124T020000Z-ab12 --api-key-file '/secrets/engage key'`,
    );
  });
});
