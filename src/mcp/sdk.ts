/**
 * The MCP SDK and the modules built on it, loaded on first use. A host whose servers are all
 * on demand (or that only prints help) never loads the SDK, which keeps CLI start-up short
 * (README: `toolshell exec 'tools --help'` with on-demand servers, median ≤ 350 ms).
 */
type SdkModules = {
  connection: typeof import("./connection.js");
  listing: typeof import("./listing.js");
  errors: typeof import("./errors.js");
  oauth: typeof import("./auth/provider.js");
};

let loading: Promise<SdkModules> | undefined;
let loaded: SdkModules | undefined;

/** The SDK-backed modules; the first call imports them, later calls share the same promise. */
export function loadSdk(): Promise<SdkModules> {
  loading ??= Promise.all([import("./connection.js"), import("./errors.js"), import("./auth/provider.js"), import("./listing.js")]).then(
    ([connection, errors, oauth, listing]) => (loaded = { connection, errors, oauth, listing }),
  );
  return loading;
}

/** The SDK-backed modules when `loadSdk` has finished, else undefined (lets hot paths skip an await). */
export function sdkIfLoaded(): SdkModules | undefined {
  return loaded;
}
