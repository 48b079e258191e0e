import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback port nothing listens on (taken, then let go): a base URL there is refused at once. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}
