/** The PostgreSQL store's public face (docs/sessions.md "The store"). */
export { openPostgresStore, PostgresStore } from "./store.js";
export type { PostgresStoreOptions } from "./store.js";
export { isPostgresUrl, postgresLocation } from "./url.js";
export { PG_MIGRATIONS, MIGRATION_LOCK } from "./migrations.js";
export { FenceError, LEASE_LOCK_CLASS } from "./lease.js";
export { CHANGES_CHANNEL } from "./notify.js";
export type { ChangeNote } from "./notify.js";
