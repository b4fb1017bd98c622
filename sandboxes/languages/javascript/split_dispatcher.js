@@codec@@
// what the program prints from now on goes to stderr, never among the replies on fd 1
process.stdout.write = process.stderr.write.bind(process.stderr);
_rs_send(1, [_rs_ready]);

// each call read from fd 0 made, its reply written on fd 1, until the tests end
function _rs_serve(entry) {
  const calls = _rs_reader(0);
  for (;;) {
    const args = [];
    try {
      if (calls.take(1)[0] !== 67) return;     // not 'C': no call
      const count = Number(calls.until(58));
      for (let i = 0; i < count; i++) args.push(_rs_read(calls));
    } catch (error) {
      if (error.code === 'EOF') return;
      throw error;
    }
    let out;
    try {
      const result = entry(...args);
      out = ['R'];
      _rs_write(result, out);
      _rs_write(args, out);
    } catch (error) {
      const kind = _rs_errors.find((known) => error instanceof known);
      out = ['X'];
      _rs_write(kind ? kind.name : 'Error', out);
      _rs_write(String(error instanceof Error ? error.message : error), out);
    }
    _rs_send(1, out);
  }
}

_rs_serve(@@entry@@);
