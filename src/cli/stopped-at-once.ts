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
