/**
 * The live replicas on the store (their heartbeats, docs/deployment.md "What is shared" → live
 * replicas) on the Servers page: id, machine, pid, URL, when each started and was last seen.
 *
 * See README → Console.
 */
import type { FC } from "hono/jsx";
import type { ReplicaInfo } from "../../shared-state.js";
import { Time } from "./parts.js";

/** The live replicas; `self` is this replica's id (marked "this one"). */
export const Replicas: FC<{ replicas: ReplicaInfo[]; self?: string }> = ({ replicas, self }) => (
  <section class="card replicas" aria-labelledby="replicas-title">
    <h2 id="replicas-title">Live replicas</h2>
    {replicas.length ? (
      <div class="table-wrap">
        <table class="list">
          <caption class="sr-only">Replicas whose heartbeat the store saw in the last 15 seconds, oldest start first</caption>
          <thead>
            <tr>
              <th scope="col">Replica</th>
              <th scope="col">Machine</th>
              <th scope="col">Pid</th>
              <th scope="col">Address</th>
              <th scope="col">Started</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {replicas.map((r) => (
              <tr data-replica={r.id}>
                <th scope="row" data-label="Replica">
                  <code>{r.id}</code> <span class="more">{r.kind === "mcp" ? "MCP gateway" : "serve"}</span>
                  {r.id === self ? <span class="more"> (this one)</span> : null}
                </th>
                <td data-label="Machine">{r.host}</td>
                <td data-label="Pid">{r.pid}</td>
                <td data-label="Address">
                  <code>{r.url}</code>
                </td>
                <td data-label="Started">
                  <Time at={r.started_at} />
                </td>
                <td data-label="Last seen">
                  <Time at={r.seen_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    ) : (
      <p class="help">No replica has written a heartbeat in the last 15 seconds (a host opened by the CLI or a library is not a replica).</p>
    )}
    <p class="help">A replica not seen for 15 seconds (killed) drops out of this list; a durable step it was running shows "replica gone" on its session page.</p>
  </section>
);
