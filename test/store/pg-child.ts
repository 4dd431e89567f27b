/**
 * A process on a PostgreSQL store, for the tests of postgres.test.ts:
 *
 *   node --import tsx pg-child.ts migrate URL          opens the store (migrating it), prints "opened", closes
 *   node --import tsx pg-child.ts lease URL SESSION    takes SESSION's lease, prints {"fence":N}, then waits
 *                                                      until killed
 */
import { openPostgresStore } from "../../src/store/index.js";

const [mode, url, session] = process.argv.slice(2);
const store = await openPostgresStore(url);
if (mode === "migrate") {
  process.stdout.write("opened\n");
  await store.close();
} else if (mode === "lease") {
  const lease = await store.lease(session);
  process.stdout.write(JSON.stringify({ fence: lease.fence }) + "\n");
  setInterval(() => {}, 1 << 30);
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
