{program}
// The call-based harness for JavaScript (docs/grading.md), after the program in the same file. The grader fills in
// the placeholders in braces. It reads the arguments (JSON, one a line) from stdin, calls `new Solution().<name>` when
// the program declares the Solution class, else the program's function of that name, and prints the result as JSON
// after the marker (undefined as null; non-finite numbers and BigInts as Python reads them; a plain object as a
// tagged object), then writes the marker to stderr.
;(() => {
  const marker = "{marker}";
  const input = require("fs").readFileSync(0, "utf8");
  const args = input.split("\n").map((line) => JSON.parse(line));
  const callee = {solution} ? new Solution() : null;
  const result = {solution} ? callee.{function}(...args) : {function}(...args);
  const encode = (value) => {
    if (value === undefined || value === null) return "null";
    switch (typeof value) {
      case "boolean":
        return value ? "true" : "false";
      case "number":
        if (Number.isFinite(value)) return JSON.stringify(value);
        return Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
      case "bigint":
        return value.toString();
      case "string":
        return JSON.stringify(value);
    }
    if (Array.isArray(value) || ArrayBuffer.isView(value)) return "[" + Array.from(value, (item) => encode(item)).join(",") + "]";
    const prototype = Object.getPrototypeOf(value);
    if (prototype === Object.prototype || prototype === null) {
      const pairs = Object.entries(value).map(([key, item]) => "[" + JSON.stringify(key) + "," + encode(item) + "]");
      return '{"d":[' + pairs.join(",") + "]}";
    }
    throw new Error("call harness: cannot report a " + (value.constructor ? value.constructor.name : typeof value));
  };
  process.stdout.write(marker + encode(result) + "\n");
  process.stderr.write(marker + "\n");
})();
