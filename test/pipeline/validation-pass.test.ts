import { describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/config/load-mapping.js';
import { validationPass } from '../../src/pipeline/validation-pass.js';

const options = { dealUpdateMethod: 'PATCH' as const };

describe('validationPass', () => {
  it('counts every record and the invalid ones of each file', async () => {
    const mapping = await loadMapping('mappings/contacts.yaml');
    const [counts] = await validationPass([mapping], options);
    expect(counts!.rows).toBeGreaterThan(0);
    expect(counts!.invalid).toBeGreaterThan(0);
  });

  it('stops reading at once when the run is interrupted (a Ctrl-C during a long validation)', async () => {
    const mapping = await loadMapping('mappings/contacts.yaml');
    const controller = new AbortController();
    controller.abort('SIGINT');
    expect(await validationPass([mapping], options, controller.signal)).toEqual([{ rows: 0, invalid: 0 }]);
  });
});
