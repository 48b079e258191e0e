/**
 * What the process says when a second signal (or the drain timeout) stops it at once. A live run
 * that has its folder names the command that resumes it; a new run stopped before that folder
 * existed has sent nothing and left nothing to resume, so it says that instead.
 */
export function stoppedAtOnceNotice(sig: string, live: boolean, resumeCommand: string | undefined): string {
  if (!live) return `stopped at once (${sig})`;
  return resumeCommand !== undefined
    ? `stopped at once (${sig}); '${resumeCommand}' continues the run`
    : `stopped at once (${sig}) before the run began; nothing was sent`;
}

/**
 * What continues the run before the command has found its folder: a resume (`resume`, `import
 * --resume`) continues a run that exists already; a new run has nothing to resume until its
 * folder exists (undefined).
 */
export function resumeCommandAtStart(argv: readonly string[]): string | undefined {
  const resumes = argv[0] === 'resume' || (argv[0] === 'import' && argv.includes('--resume'));
  return resumes ? 'engage-import resume' : undefined;
}
