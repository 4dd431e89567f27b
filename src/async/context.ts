/**
 * The values toolshell carries across awaits (the shell call a `tools` command serves, the person
 * behind it, the session a server signs in for, the saved scripts a call runs inside, …), each a
 * {@link ContextSlot} of one shared async context.
 *
 * One `AsyncLocalStorage` for all of them, not one each: on Node 20 every live
 * `AsyncLocalStorage` adds its own step to the hook that runs at the creation of every promise,
 * and the shell interpreter awaits a chain of promises for every word and command, so each
 * storage was paid on every command of every script (docs/shell.md, "Where a nested call's time
 * goes"). A slot's `run` and `get` behave as an `AsyncLocalStorage`'s `run` and `getStore` of its
 * own: `run` sets the slot's value for `fn` and everything `fn` starts, and leaves the others' as
 * they are.
 */
import { AsyncLocalStorage } from "node:async_hooks";

type Values = Readonly<Record<symbol, unknown>>;

const storage = new AsyncLocalStorage<Values>();

/** One value carried by async context (see the module's comment). */
export interface ContextSlot<T> {
  /** Runs `fn` with this slot holding `value` (the other slots unchanged); returns what `fn` returns. */
  run<R>(value: T, fn: () => R): R;
  /** The value `run` set for the code running now; undefined outside any `run`. */
  get(): T | undefined;
}

/** A new slot; `name` only labels it when debugging. */
export function contextSlot<T>(name: string): ContextSlot<T> {
  const key = Symbol(name);
  return {
    run: (value, fn) => storage.run({ ...storage.getStore(), [key]: value }, fn),
    get: () => storage.getStore()?.[key] as T | undefined,
  };
}
