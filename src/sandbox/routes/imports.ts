/**
 * `GET /import/status/` (docs/api-contract.md R-BULK-7): with `?import_id=<uuid>`
 * the status of that import, `{"success": true, "data": {id, status, total_count, succeeded,
 * failed, started_at, finished_at, author, rows_with_errors}}`; without it, every import
 * (oldest first) as a list under `data`. An id that names no import is a 404 `Not found.`
 */
import { statusOf } from '../bulk/import-store.js';
import { detail, NOT_FOUND } from '../errors.js';
import { answer, type EndpointAnswer, type EndpointRequest, type Route } from './route.js';

function importStatus({ state, query }: EndpointRequest): EndpointAnswer {
  const id = query.get('import_id');
  if (id === null) return answer(200, { success: true, data: state.imports.list().map(statusOf) });
  const record = state.imports.get(id);
  if (record === undefined) return answer(404, detail(NOT_FOUND));
  return answer(200, { success: true, data: statusOf(record) });
}

export const importRoutes: readonly Route[] = [
  { name: 'import/status/', pattern: /^import\/status\/$/, methods: { GET: importStatus } },
];
