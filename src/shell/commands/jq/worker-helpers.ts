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

/**
 * The wasm binary with more of its functions exported: each named function (by the module's
 * `name` custom section, WebAssembly core spec appendix 7.4.1) is added to the export section
 * as `ts_<name>`. jq-web's build keeps the name section but exports only `main`; this exports
 * libjq's own functions from the same binary, so the jq that runs is byte for byte the one
 * the conformance corpus checked. Only the export section changes.
 * @throws Error naming a function the binary does not have
 */
export function withExports(bin: Uint8Array, names: string[]): Uint8Array<ArrayBuffer> {
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
  const utf8 = new TextDecoder();
  const byName = new Map<string, number>();
  let exportSection: { start: number; body: number; end: number } | null = null;
  while (at < bin.length) {
    const start = at;
    const id = bin[at++];
    const size = read();
    const body = at;
    if (id === 7) exportSection = { start, body, end: body + size };
    if (id === 0) {
      const n = read();
      const section = utf8.decode(bin.subarray(at, at + n));
      at += n;
      while (section === "name" && at < body + size) {
        const sub = bin[at++];
        const subSize = read();
        const subEnd = at + subSize;
        if (sub === 1) {
          const count = read();
          for (let i = 0; i < count; i++) {
            const index = read();
            const len = read();
            byName.set(utf8.decode(bin.subarray(at, at + len)), index);
            at += len;
          }
        }
        at = subEnd;
      }
    }
    at = body + size;
  }
  if (!exportSection) throw new Error("jq-web: no export section");
  at = exportSection.body;
  const count = read();
  const added: number[] = [];
  for (const name of names) {
    const index = byName.get(name);
    if (index === undefined) throw new Error(`jq-web: the binary has no function ${name}`);
    const text = new TextEncoder().encode(`ts_${name}`);
    added.push(...leb(text.length), ...text, 0, ...leb(index));
  }
  const entries = bin.subarray(at, exportSection.end);
  const content = [...leb(count + names.length)];
  const bodyLength = content.length + entries.length + added.length;
  const header = [7, ...leb(bodyLength)];
  const out = new Uint8Array(bin.length - (exportSection.end - exportSection.start) + header.length + bodyLength);
  out.set(bin.subarray(0, exportSection.start), 0);
  let w = exportSection.start;
  out.set(header, w);
  w += header.length;
  out.set(content, w);
  w += content.length;
  out.set(entries, w);
  w += entries.length;
  out.set(added, w);
  w += added.length;
  out.set(bin.subarray(exportSection.end), w);
  return out;
}

/**
 * Runs jq's own `main` (exported by jq-web as `__main_argc_argv`) on argv, which it keeps on
 * the wasm stack (the caller restores the stack pointer after the run).
 * @param exitCode the status of an exception that is jq calling `exit`, else null (rethrown)
 * @returns main's exit status
 */
export function callJqMain(ex: any, argv: string[], exitCode: (e: unknown) => number | null): number {
  const enc = new TextEncoder();
  const ptrs: number[] = [];
  for (const a of argv) {
    const b = enc.encode(a);
    const p = ex._emscripten_stack_alloc(b.length + 1);
    const u8 = new Uint8Array(ex.memory.buffer);
    u8.set(b, p);
    u8[p + b.length] = 0;
    ptrs.push(p);
  }
  const argvPtr = ex._emscripten_stack_alloc(4 * (ptrs.length + 1));
  const v = new DataView(ex.memory.buffer);
  ptrs.forEach((p, i) => v.setUint32(argvPtr + 4 * i, p, true));
  v.setUint32(argvPtr + 4 * ptrs.length, 0, true);
  try {
    return ex.__main_argc_argv(ptrs.length, argvPtr);
  } catch (e) {
    const code = exitCode(e);
    if (code === null) throw e;
    return code;
  }
}

/**
 * Places a run's files and directories in the instance's filesystem (Emscripten's `FS`) at their
 * absolute paths, creating the working directory and missing parents; a path that exists is left.
 * @returns what was created, for removal after the run (files first, then directories, newest first)
 */
export function stageJqFiles(FS: any, cwd: string, files: Array<{ path: string; data?: Uint8Array; dir?: boolean }>): { files: string[]; dirs: string[] } {
  const created = { files: [] as string[], dirs: [] as string[] };
  const mkdirs = (dir: string) => {
    let cur = "";
    for (const p of dir.split("/").filter(Boolean)) {
      cur += "/" + p;
      if (!FS.analyzePath(cur).exists) {
        FS.mkdir(cur);
        created.dirs.push(cur);
      }
    }
  };
  mkdirs(cwd);
  for (const f of files) {
    if (f.dir) mkdirs(f.path);
    else if (f.data) {
      mkdirs(f.path.slice(0, f.path.lastIndexOf("/")));
      if (!FS.analyzePath(f.path).exists) {
        FS.writeFile(f.path, f.data);
        created.files.push(f.path);
      }
    }
  }
  return created;
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
