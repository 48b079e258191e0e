import type { TestSandbox } from './_helpers.js';

export interface UploadInit {
  /** Query parameters (`separator`, `trigger_automations`). */
  readonly query?: Record<string, string>;
  /** Form fields besides the file (`column_mapping`, `tags`, `lists`, `trigger_automations`). */
  readonly fields?: Record<string, string>;
  /** The file as bytes (default: `csv` as UTF-8); `null`: no file part at all. */
  readonly file?: Buffer<ArrayBuffer> | null;
  readonly headers?: Record<string, string>;
}

/** `POST /<kind>/import/` with the CSV as `input_file` (multipart, as a client's FormData sends it). */
export async function upload(s: TestSandbox, kind: 'users' | 'products' | 'deals', csv: string, init: UploadInit = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(init.fields ?? {})) form.set(k, v);
  if (init.file !== null)
    form.set('input_file', new Blob([init.file ?? Buffer.from(csv, 'utf8')], { type: 'text/csv' }), 'rows.csv');
  const url = new URL(`${kind}/import/`, s.url);
  for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
  const res = await fetch(url, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Token ${s.apiKey}`, Accept: '*/*; version=2', ...init.headers },
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Waits (turns of the event loop, no timer) until the import has left its running state. */
export async function settle(s: TestSandbox, id: string): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (s.state.imports.get(id)?.status !== 'running') return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new Error(`import ${id} still running`);
}

/** Uploads, waits for the import to finish, and answers its status object (`data` of GET /import/status/). */
export async function importAndWait(
  s: TestSandbox,
  kind: 'users' | 'products' | 'deals',
  csv: string,
  init: UploadInit = {},
) {
  const up = await upload(s, kind, csv, init);
  if (up.status !== 200) throw new Error(`upload answered ${up.status}: ${up.text}`);
  await settle(s, up.body.data.import_id);
  return (await s.call('GET', `import/status/?import_id=${up.body.data.import_id}`)).body.data;
}
