@@codec@@
const _rs_replies = _rs_reader(4);
let _rs_ready_seen = false;

// a mutable argument (an array, a plain object) takes the value it had after the call in the program
function _rs_copy_back(arg, changed) {
  const plain = (value) => value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
  if (Array.isArray(arg) && Array.isArray(changed)) {
    arg.length = 0;
    for (const item of changed) arg.push(item);
  } else if (plain(arg) && plain(changed)) {
    for (const key of Object.keys(arg)) delete arg[key];
    for (const key of Object.keys(changed))
      Object.defineProperty(arg, key, { value: changed[key], writable: true, enumerable: true, configurable: true });
  }
}

// one call of the entry function, made in the program's process: the arguments sent, the result read back
function _rs_call(args) {
  const out = ['C' + args.length + ':'];
  try {
    for (const arg of args) _rs_write(arg, out);
  } catch (error) {   // the benchmark's argument, not the program's doing
    _rs_send(2, ['@@unsupported@@' + error.message + '\n']);
    process.exit(1);
  }
  let tag, first, second;
  try {
    _rs_send(3, out);
    for (let matched = 0; !_rs_ready_seen; _rs_ready_seen = matched === _rs_ready.length) {
      const byte = _rs_replies.take(1)[0];
      matched = byte === _rs_ready.charCodeAt(matched) ? matched + 1 : byte === 0 ? 1 : 0;
    }
    tag = String.fromCharCode(_rs_replies.take(1)[0]);
    if (tag === 'R' || tag === 'X') [first, second] = [_rs_read(_rs_replies), _rs_read(_rs_replies)];
  } catch (error) {
    throw new Error(error.code === 'EOF' || error.code === 'EPIPE' ? 'the program ended during a call'
      : `the program's reply is not a value: ${error.message}`);
  }
  if (tag === 'R') {
    if (Array.isArray(second)) args.forEach((arg, i) => _rs_copy_back(arg, second[i]));
    return first;
  }
  if (tag === 'X' && typeof first === 'string' && typeof second === 'string') {
    const kind = _rs_errors.find((known) => known.name === first);
    throw kind ? new kind(second) : new Error(`the function threw ${first}: ${second}`);
  }
  throw new Error("the program's reply is not a value");
}

function @@entry@@(@@params@@)@@ret@@ {
  return _rs_call(Array.from(arguments));
}
