// The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.
// Numbers cross as their binary64 bits (1 and 1.0 are one value here), BigInts as integers; valid TypeScript too.
const _rs_fs = require('node:fs');
// the built-in errors an exception crosses as, subclasses first (AggregateError takes other arguments: as Error)
const _rs_errors = [EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, Error];
// the dispatcher's first word: what the program printed on fd 1 before its dispatcher ran comes before it (Node
// cannot move its own stdout, and the program's top level runs first); its first byte occurs in it once
const _rs_ready = '\0split: ready\n';

function _rs_write(value, out) {
  if (value === null) out.push('N');
  else if (value === undefined) out.push('U');
  else if (value === true || value === false) out.push(value ? 'T' : 'F');
  else if (typeof value === 'number') {
    const bits = Buffer.alloc(8);
    bits.writeDoubleBE(value);
    out.push('d' + bits.toString('hex'));
  } else if (typeof value === 'bigint') out.push('i' + value.toString() + ';');
  else if (typeof value === 'string') {
    const data = Buffer.from(value, 'utf8');
    out.push('s' + data.length + ':', data);
  } else if (value instanceof Uint8Array) out.push('y' + value.length + ':', Buffer.from(value));
  else if (Array.isArray(value)) {
    out.push('l' + value.length + ':');
    for (let i = 0; i < value.length; i++) _rs_write(value[i], out);
  } else if (value instanceof Set) {
    out.push('e' + value.size + ':');
    for (const item of value) _rs_write(item, out);
  } else if (value instanceof Map || typeof value === 'object') {
    // any other object as its own enumerable properties, as assert.deepEqual compares it
    const pairs = value instanceof Map ? Array.from(value) : Object.keys(value).map((key) => [key, value[key]]);
    out.push('m' + pairs.length + ':');
    for (const [key, item] of pairs) {
      _rs_write(key, out);
      _rs_write(item, out);
    }
  } else throw new TypeError(`a ${typeof value} is not a value that crosses to the tests`);
}

// all of `out` on descriptor fd; a pipe the other side's runtime made non-blocking is waited on
function _rs_send(fd, out) {
  const data = Buffer.concat(out.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part)));
  for (let at = 0; at < data.length;) {
    try {
      at += _rs_fs.writeSync(fd, data, at);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

// a blocking reader of descriptor fd: take(count) bytes, until(byte)'s text before it; at the end an error whose
// code is 'EOF'
function _rs_reader(fd) {
  const buffer = Buffer.alloc(65536);
  let start = 0, end = 0;
  const fill = (into, at) => {
    for (;;) {
      try {
        const got = _rs_fs.readSync(fd, into, at, into.length - at, null);
        if (got === 0) throw Object.assign(new RangeError('the other side ended'), { code: 'EOF' });
        return got;
      } catch (error) {
        if (error.code !== 'EAGAIN') throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      }
    }
  };
  const take = (count) => {
    if (start === end && count < buffer.length) {
      start = 0;
      end = fill(buffer, 0);
    }
    if (end - start >= count) return buffer.subarray(start, start += count);
    const data = Buffer.alloc(count);
    let at = buffer.copy(data, 0, start, end);
    start = end = 0;
    while (at < count) at += fill(data, at);
    return data;
  };
  const until = (stop) => {
    let text = '';
    for (let byte; (byte = take(1)[0]) !== stop;) {
      if (text.length > 100000) throw new RangeError('a number without its end in the wire format');
      text += String.fromCharCode(byte);
    }
    return text;
  };
  return { take, until };
}

// one value read: built-in types only (an object's keys as own data properties, `__proto__` among them)
function _rs_read(reader) {
  const tag = String.fromCharCode(reader.take(1)[0]);
  if (tag === 'N') return null;
  if (tag === 'U') return undefined;
  if (tag === 'T' || tag === 'F') return tag === 'T';
  if (tag === 'i') {
    const digits = reader.until(59);
    if (!/^-?[0-9]+$/.test(digits)) throw new RangeError('an integer that is not one in the wire format');
    return BigInt(digits);
  }
  if (tag === 'd') {
    const hex = reader.take(16).toString('latin1');
    if (!/^[0-9a-f]{16}$/.test(hex)) throw new RangeError('a float that is not one in the wire format');
    return Buffer.from(hex, 'hex').readDoubleBE(0);
  }
  const digits = reader.until(58);
  if (!/^[0-9]+$/.test(digits)) throw new RangeError(`${JSON.stringify(tag)} is no tag of the wire format`);
  const count = Number(digits);
  if (tag === 's' || tag === 'c') return reader.take(count).toString('utf8');
  if (tag === 'y') return Buffer.from(reader.take(count));
  const items = [];
  for (let i = 0; i < (tag === 'm' ? 2 * count : count); i++) items.push(_rs_read(reader));
  if (tag === 'l' || tag === 't') return items;
  if (tag === 'e') return new Set(items);
  if (tag !== 'm') throw new RangeError(`${JSON.stringify(tag)} is no tag of the wire format`);
  const pairs = [];
  for (let i = 0; i < items.length; i += 2) pairs.push([items[i], items[i + 1]]);
  if (!pairs.every(([key]) => typeof key === 'string')) return new Map(pairs);
  const object = {};
  for (const [key, value] of pairs)
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  return object;
}
