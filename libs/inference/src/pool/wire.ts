import { types } from 'node:util';

/**
 * Requests and results cross threads as plain data: every Buffer becomes a Uint8Array of its own
 * (so it can be transferred without detaching memory its owner still uses, such as Node's pooled
 * slabs), and comes back as a Buffer over the same memory.
 */
export function toWire(value: unknown, transfer?: ArrayBuffer[]): unknown {
  if (types.isUint8Array(value)) {
    const copy = new Uint8Array(value); // a Buffer's memory may be shared; the copy is ours to move
    transfer?.push(copy.buffer);
    return copy;
  }
  if (Array.isArray(value)) return value.map((item) => toWire(item, transfer));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toWire(item, transfer)]));
  }
  return value;
}

export function fromWire(value: unknown): unknown {
  if (types.isUint8Array(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return value.map(fromWire);
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fromWire(item)]));
  }
  return value;
}

/** Checks that hold for objects of another realm too (messages arrive in the host's realm under jest). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}
