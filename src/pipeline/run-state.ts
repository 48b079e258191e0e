/** Why a run stops sending. The first reason stands; later ones change nothing. */
export type StopReason =
  /** --fail-on-invalid and some rows are invalid: nothing is sent, not fatal. */
  | { readonly kind: 'invalid'; readonly count: number }
  /** SIGINT / SIGTERM: in-flight rows finish, the rest are `not_sent`, the run stays resumable. */
  | { readonly kind: 'signal'; readonly name: string }
  /** A condition no row can get past (401, the API unreachable or answering wrongly, a pause too long): exit 3. */
  | { readonly kind: 'api'; readonly message: string }
  /** The ledger or the disk failed: exit 3, nothing more is sent. */
  | { readonly kind: 'ledger'; readonly message: string }
  /** An input was rewritten while the run read it: exit 3, nothing more is sent (a resume would be refused). */
  | { readonly kind: 'input'; readonly message: string }
  /** A bug while sending: the run stops, the report is written, the error is rethrown. */
  | { readonly kind: 'bug'; readonly error: unknown };

/**
 * The state of one live run that every row looks at: whether it may still send (`stopReason`,
 * the words each unsent row gets), whether it ends fatal (exit 3), and the summary's "stopped
 * early" line (`aborted`).
 */
export class RunState {
  /** Set once the run must send nothing more: the message of every row not sent from then on. */
  stopReason: string | undefined;
  /** The summary's "stopped early" line. */
  aborted: string | undefined;
  fatal = false;
  /** A bug met while sending: rethrown once the report is written. */
  failure: unknown;
  readonly #resumeHint: () => string;

  constructor(resumeHint: () => string) {
    this.#resumeHint = resumeHint;
  }

  get resumeHint(): string {
    return this.#resumeHint();
  }

  stop(reason: StopReason): void {
    switch (reason.kind) {
      case 'invalid': {
        const why = `not sent: --fail-on-invalid and ${reason.count} row${reason.count === 1 ? ' is' : 's are'} invalid`;
        this.stopReason ??= why;
        this.aborted ??= why;
        return;
      }
      case 'signal':
        this.stopReason ??= `not sent: the run was interrupted (${reason.name}); ${this.resumeHint}`;
        return;
      case 'api':
        this.#fatal(`${reason.message}; ${this.resumeHint}`, `not sent: ${reason.message}`);
        return;
      case 'ledger':
        // Like a 401: nothing more is sent, and every later row is still reported, `not_sent`.
        this.#fatal(`the run stopped: ${reason.message}`, `not sent: the run stopped on an error (${reason.message})`);
        return;
      case 'input':
        this.#fatal(`the run stopped: ${reason.message}`, `not sent: ${reason.message}`);
        return;
      case 'bug':
        this.failure ??= reason.error;
        this.stopReason ??= 'not sent: the run stopped on an error (see the message above)';
        return;
    }
  }

  /**
   * A request given up unsent while the run could go on (429s that never ended, an API that
   * could not be reached for that request): the run stops, as when the API is unreachable, so
   * that no later row goes before it (a later row of its key, a child of its entity): a resume
   * sends it and the rest in order.
   */
  givenUpUnsent(why: string): void {
    // Stopped already (a signal, another request given up): that reason stands, and says if it is fatal.
    if (this.stopReason !== undefined) return;
    this.stop({
      kind: 'api',
      message: `a request was given up unsent (${why.replace(/^not sent: /, '')}), and the run stopped so that no later row goes before it`,
    });
  }

  /** A ledger failure: stops the run, and gives its message for the row it happened to. */
  ledgerBroke(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    this.stop({ kind: 'ledger', message });
    return message;
  }

  #fatal(aborted: string, notSent: string): void {
    this.fatal = true;
    this.aborted ??= aborted;
    this.stopReason ??= notSent;
  }
}
