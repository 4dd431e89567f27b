/**
 * Helpers of the jq worker: lowering a WebAssembly module's memory maximum (so jq's engine cannot
 * grow past the cap, docs/security.md "Limits") and the output sinks. Each function is
 * self-contained: engine.ts serialises them into the worker's source beside `jqWorkerMain`.
 */

/**
 * The wasm binary with its memory's maximum lowered to `maxBytes` (WebAssembly core spec,
 * §5.5.8 memory section: `flags min [max]`, sizes in 64 KiB pages), so the engine itself
 * refuses to grow past it. Only that section's bytes change; the others are copied as they are.
 */
export function withMemoryMaximum(bin: Uint8Array, maxBytes: number): Uint8Array<ArrayBuffer> {
  const maxPages = Math.floor(maxBytes / 65536);
  const leb = (n: number): number[] => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n = Math.floor(n / 128);
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  };
  let at = 8;
  const read = (): number => {
    let r = 0;
    let mul = 1;
    let b: number;
    do {
      b = bin[at++];
      r += (b & 0x7f) * mul;
      mul *= 128;
    } while (b & 0x80);
    return r;
  };
  while (at < bin.length) {
    const start = at;
    const id = bin[at++];
    const size = read();
    const body = at;
    if (id === 5) {
      const count = read();
      const flags = read();
      const min = read();
      if (count !== 1 || flags > 1) throw new Error("jq-web: unexpected memory section");
      if (min > maxPages) throw new Error(`jq-web: needs ${min * 64} KiB of memory at start, over the limit`);
      const section = [5, ...leb(leb(1).length + 1 + leb(min).length + leb(maxPages).length), ...leb(1), 1, ...leb(min), ...leb(maxPages)];
      const out = new Uint8Array(bin.length - (body + size - start) + section.length);
      out.set(bin.subarray(0, start), 0);
      out.set(section, start);
      out.set(bin.subarray(body + size), start + section.length);
      return out;
    }
    at = body + size;
  }
  throw new Error("jq-web: no memory section");
}

/** One stream's output: a buffer that doubles as it fills, and the bytes used in it. */
export interface Sink {
  buf: Uint8Array;
  bytes: number;
}


export function append(sink: Sink, data: Uint8Array): void {
  const need = sink.bytes + data.length;
  if (need > sink.buf.length) {
    let size = sink.buf.length || 64 * 1024;
    while (size < need) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(sink.buf.subarray(0, sink.bytes));
    sink.buf = grown;
  }
  sink.buf.set(data, sink.bytes);
  sink.bytes = need;
}

/** Empties a sink for the next run; a buffer grown past 1 MiB is let go. */
export function reset(sink: Sink): void {
  if (sink.buf.length > 1024 * 1024) sink.buf = new Uint8Array(64 * 1024);
  sink.bytes = 0;
}
