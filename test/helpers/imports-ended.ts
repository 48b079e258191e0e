import type { Sandbox } from '../../src/sandbox/index.js';

/** Until every import the sandbox took has ended (its rows all applied or refused), at most 20 s. */
export async function importsEnded(s: Sandbox): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (s.state.imports.list().some((i) => i.status === 'running')) {
    if (Date.now() > deadline) throw new Error('the sandbox imports did not end within 20 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}
