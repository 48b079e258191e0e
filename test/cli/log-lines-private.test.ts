/**
 * The text log of a run without a terminal (cron) names the requests it paused or gave up on by
 * their route: a path holds the customer's id (often an email), which a log must not carry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { routeOf } from '../../src/cli/live-run-hooks.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpTree } from '../helpers/tmp.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('429 lines of the text log', () => {
  it('name the route, never the customer id in the path', async () => {
    // 2 requests a second at the sandbox, 50 sent: the run is throttled.
    sandbox = await startSandbox({ rate: 2, fixtures: { users: [{ custom_id: 'jane.roe@private.example' }] } });
    const env = { ENGAGE_API_KEY: sandbox.apiKey, ENGAGE_BASE_URL: sandbox.url };
    const rows = Array.from({ length: 6 }, (_, i) => `E${i},jane.roe@private.example`);
    const dir = tmpTree({
      'ev.csv': `id,customer\n${rows.join('\n')}\n`,
      'ev.yaml':
        'resource: event\nsource: { file: ev.csv }\nkey: id\nfields:\n  user_custom_id: customer\n  name: { value: Visited }\n',
    });
    const r = await runCli(['import', 'ev.yaml', '--rate', '50'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('429 on POST /users-by-id/…/events/: the whole run pauses');
    expect(r.stderr).not.toContain('private.example');
  });

  it('routeOf keeps the route words and hides every id', () => {
    expect(routeOf('users-by-id/jane%40x.com/events/')).toBe('/users-by-id/…/events/');
    expect(routeOf('/deals/123/')).toBe('/deals/…/');
    expect(routeOf('product-event-creation/a/b/')).toBe('/product-event-creation/…/…/');
    expect(routeOf('import/status/?import_id=abc')).toBe('/import/status/');
  });
});
