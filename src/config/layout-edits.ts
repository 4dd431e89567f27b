/**
 * Changing one property of a JSON (or JSONC) text while leaving the rest of the text as written:
 * its layout, spacing and comments. jsonc-parser finds the nodes; its own `modify` re-formats the
 * lines around an edit (a one-line `{"a":{…}}` file came back spread over many lines), so the
 * text is written here in the style found where it goes: on a line of its own indented as its
 * neighbour is, or on one line, spaced (`{ "a": [ 1 ] }`) or compact (`{"a":[1]}`) as that line is.
 * Used by `toolshell servers add|update|remove` (edit.ts).
 */
import type { Node } from "jsonc-parser";

type Jsonc = typeof import("jsonc-parser");

/** How to write a value where it goes. */
export interface Layout {
  /** One level of indentation in the file. */
  indent: string;
  eol: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A value on one line, spaced as `{ "a": [ 1 ] }` or compact as `{"a":[1]}`. */
function oneLine(value: unknown, spaced: boolean): string {
  return spaced ? JSON.stringify(value, null, 1).replace(/\n\s*/g, " ") : JSON.stringify(value);
}

const spacedText = (text: string) => /":\s/.test(text);
const textOf = (text: string, node: Node) => text.slice(node.offset, node.offset + node.length);

/** What stands before `offset` on its line, when it is only blanks (the line's indentation). */
function leadOf(text: string, offset: number): string | undefined {
  const lead = text.slice(text.lastIndexOf("\n", offset - 1) + 1, offset);
  return /^[ \t]*$/.test(lead) ? lead : undefined;
}

/** `value` written to stand at `offset`, in the style of `around` (the text it replaces or joins). */
function written(text: string, offset: number, around: string, value: unknown, layout: Layout): string {
  const lead = around.includes("\n") ? leadOf(text, offset) : undefined;
  return lead === undefined ? oneLine(value, spacedText(around)) : JSON.stringify(value, null, layout.indent).split("\n").join(layout.eol + lead);
}

/**
 * Adds property `key` after the last one of the object at `path`.
 * @returns the next text, or undefined when there is no such object or it is empty.
 */
function addProperty(jsonc: Jsonc, text: string, path: string[], key: string, value: unknown, layout: Layout): string | undefined {
  const object = jsonc.findNodeAtLocation(jsonc.parseTree(text) ?? { type: "null", offset: 0, length: 0 }, path);
  const last = object?.type === "object" ? object.children?.at(-1) : undefined;
  if (!object || !last) return undefined;
  const end = last.offset + last.length;
  const lead = leadOf(text, last.offset);
  if (lead !== undefined) {
    return `${text.slice(0, end)},${layout.eol}${lead}${JSON.stringify(key)}: ${JSON.stringify(value, null, layout.indent).split("\n").join(layout.eol + lead)}${text.slice(end)}`;
  }
  const spaced = spacedText(textOf(text, object));
  return `${text.slice(0, end)},${spaced ? " " : ""}${JSON.stringify(key)}:${spaced ? " " : ""}${oneLine(value, spaced)}${text.slice(end)}`;
}

/**
 * Removes the property at `path` with the comma that joined it to a neighbour.
 * @returns the next text, or undefined when there is no such property.
 */
function removeProperty(jsonc: Jsonc, text: string, path: string[]): string | undefined {
  const property = jsonc.findNodeAtLocation(jsonc.parseTree(text) ?? { type: "null", offset: 0, length: 0 }, path)?.parent;
  const siblings = property?.parent?.children;
  if (!property || property.type !== "property" || !siblings) return undefined;
  const i = siblings.indexOf(property);
  if (i > 0) {
    const before = siblings[i - 1];
    return text.slice(0, before.offset + before.length) + text.slice(property.offset + property.length);
  }
  if (siblings.length > 1) return text.slice(0, property.offset) + text.slice(siblings[1].offset);
  const object = property.parent!;
  return text.slice(0, object.offset + 1) + text.slice(object.offset + object.length - 1);
}

/**
 * Sets (`value` given) or removes (`value` undefined) the property at `path` (at least one key),
 * changing as little text as it can: a changed object keeps the text of its unchanged keys.
 * @returns the next text, or undefined when the text cannot be edited this way (the caller then
 *   uses jsonc-parser's own `modify`).
 */
export function setProperty(jsonc: Jsonc, text: string, path: string[], value: unknown, layout: Layout): string | undefined {
  const node = jsonc.findNodeAtLocation(jsonc.parseTree(text) ?? { type: "null", offset: 0, length: 0 }, path);
  if (value === undefined) return node ? removeProperty(jsonc, text, path) : text;
  if (!node) return addProperty(jsonc, text, path.slice(0, -1), path.at(-1)!, value, layout);
  const before = jsonc.getNodeValue(node) as unknown;
  if (JSON.stringify(before) === JSON.stringify(value)) return text;
  // An object keeps its unchanged keys' text; any other value is written again where it stood,
  // in the style it had.
  if (node.type === "object" && isObject(before) && isObject(value) && Object.keys(before).length && Object.keys(value).length) {
    let next: string | undefined = text;
    for (const key of new Set([...Object.keys(before), ...Object.keys(value)])) {
      next = setProperty(jsonc, next, [...path, key], value[key], layout);
      if (next === undefined) return undefined;
    }
    return next;
  }
  return text.slice(0, node.offset) + written(text, node.offset, textOf(text, node), value, layout) + text.slice(node.offset + node.length);
}
