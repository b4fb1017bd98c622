"""Small known programs per language: `add(a, b)` function style (MultiPL-E layout) and a stdin/stdout sum.

Function style: program = prompt + completion + "\n" + tests; the `wrong` completion subtracts instead.
stdin/stdout: reads two integers and prints their sum.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Programs:
    prompt: str
    completion: str
    tests: str
    io: str

    @property
    def wrong(self) -> str:
        return self.completion.replace("+", "-")


PROGRAMS: dict[str, Programs] = {
    "python": Programs(
        "def add(a, b):\n", "    return a + b\n", "assert add(2, 3) == 5\n",
        "a, b = map(int, input().split())\nprint(a + b)\n"),
    "cpp": Programs(
        "#include <cassert>\nlong add(long a, long b) {\n", "    return a + b;\n}\n",
        "int main() { assert(add(2, 3) == 5); return 0; }\n",
        "#include <iostream>\nint main() { long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n"),
    "java": Programs(
        "class Problem {\n    public static long add(long a, long b) {\n", "        return a + b;\n    }\n}\n",
        "public class Main {\n    public static void main(String[] args) {\n"
        "        if (Problem.add(2, 3) != 5) throw new AssertionError();\n    }\n}\n",
        "import java.util.*;\nclass Helper { static long sum(long x, long y) { return x + y; } }\n"
        "public class Main {\n    public static void main(String[] args) {\n"
        "        Scanner s = new Scanner(System.in);\n"
        "        System.out.println(Helper.sum(s.nextLong(), s.nextLong()));\n    }\n}\n"),
    "javascript": Programs(
        "function add(a, b) {\n", "  return a + b;\n}\n",
        "const assert = require('node:assert');\nassert.deepEqual(add(2, 3), 5);\n",
        "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
        "console.log(a + b);\n"),
    "typescript": Programs(
        "function add(a: number, b: number): number {\n", "  return a + b;\n}\n",
        "declare var require: any;\nconst assert = require('node:assert');\nassert.deepEqual(add(2, 3), 5);\n",
        "declare var require: any;\n"
        "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
        "console.log(a + b);\n"),
    "rust": Programs(
        "fn add(a: i64, b: i64) -> i64 {\n", "    a + b\n}\n", "fn main() {\n    assert_eq!(add(2, 3), 5);\n}\n",
        "use std::io::Read;\nfn main() {\n    let mut s = String::new();\n"
        "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
        "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
        "    println!(\"{}\", v[0] + v[1]);\n}\n"),
    "go": Programs(
        "package main\n\nfunc add(a int, b int) int {\n", "\treturn a + b\n}\n",
        "func main() {\n\tif add(2, 3) != 5 {\n\t\tpanic(\"wrong\")\n\t}\n}\n",
        "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar a, b int\n\tfmt.Scan(&a, &b)\n"
        "\tfmt.Println(a + b)\n}\n"),
    "ruby": Programs(
        "def add(a, b)\n", "  a + b\nend\n", "raise 'wrong' unless add(2, 3) == 5\n",
        "a, b = gets.split.map(&:to_i)\nputs a + b\n"),
    "php": Programs(
        "<?php\nfunction add($a, $b) {\n", "  return $a + $b;\n}\n",
        "if (add(2, 3) !== 5) { throw new Exception('wrong'); }\n",
        "<?php\n[$a, $b] = array_map('intval', preg_split('/\\s+/', trim(stream_get_contents(STDIN))));\n"
        "echo $a + $b, \"\\n\";\n"),
    "perl": Programs(
        "sub add {\n    my ($a, $b) = @_;\n", "    return $a + $b;\n}\n", "die 'wrong' unless add(2, 3) == 5;\n",
        "my ($a, $b) = split ' ', <STDIN>;\nprint $a + $b, \"\\n\";\n"),
    "bash": Programs(
        "add() {\n", "    echo $(( $1 + $2 ))\n}\n", "[[ $(add 2 3) == 5 ]] || exit 1\n",
        "read a b\necho $((a + b))\n"),
    "lua": Programs(
        "local function add(a, b)\n", "  return a + b\nend\n", "assert(add(2, 3) == 5)\n",
        "local a, b = io.read('n', 'n')\nprint(a + b)\n"),
    "r": Programs(
        "add <- function(a, b) {\n", "  a + b\n}\n", "stopifnot(add(2, 3) == 5)\n",
        "x <- scan(file('stdin'), quiet = TRUE)\ncat(x[1] + x[2], '\\n', sep = '')\n"),
    "fortran": Programs(
        "module m\ncontains\n  integer function add(a, b)\n    integer, intent(in) :: a, b\n",
        "    add = a + b\n  end function add\nend module m\n",
        "program main\n  use m\n  if (add(2, 3) /= 5) error stop 1\nend program main\n",
        "program main\n  integer :: a, b\n  read(*, *) a, b\n  print '(I0)', a + b\nend program main\n"),
    "csharp": Programs(
        "using System;\nclass Problem {\n    public static long Add(long a, long b) {\n",
        "        return a + b;\n    }\n",
        "    public static void Main(string[] args) {\n"
        "        if (Add(2, 3) != 5) throw new Exception(\"wrong\");\n    }\n}\n",
        "using System;\nclass Program {\n    static void Main() {\n"
        "        var p = Console.ReadLine().Split(' ');\n"
        "        Console.WriteLine(long.Parse(p[0]) + long.Parse(p[1]));\n    }\n}\n"),
    "scala": Programs(
        "object Problem {\n  def add(a: Long, b: Long): Long = {\n", "    a + b\n  }\n",
        "  def main(args: Array[String]): Unit = {\n    assert(add(2, 3) == 5)\n  }\n}\n",
        "object Main {\n  def main(args: Array[String]): Unit = {\n"
        "    val Array(a, b) = scala.io.StdIn.readLine().trim.split(\"\\\\s+\").map(_.toLong)\n"
        "    println(a + b)\n  }\n}\n"),
    "kotlin": Programs(
        "fun add(a: Long, b: Long): Long {\n", "    return a + b\n}\n",
        "fun main() {\n    if (add(2, 3) != 5L) throw Exception(\"wrong\")\n}\n",
        "fun main() {\n    val (a, b) = readLine()!!.trim().split(\" \").map { it.toLong() }\n    println(a + b)\n}\n"),
    "ocaml": Programs(
        "let add (a : int) (b : int) : int =\n", "  a + b\n", "let () = assert (add 2 3 = 5)\n",
        "let () = Scanf.scanf \" %d %d\" (fun a b -> Printf.printf \"%d\\n\" (a + b))\n"),
    "racket": Programs(
        "#lang racket\n(define (add a b)\n", "  (+ a b))\n", "(unless (= (add 2 3) 5) (exit 1))\n",
        "#lang racket\n(define a (read))\n(define b (read))\n(displayln (+ a b))\n"),
    "d": Programs(
        "long add(long a, long b) {\n", "    return a + b;\n}\n", "void main() {\n    assert(add(2, 3) == 5);\n}\n",
        "import std.stdio;\nvoid main() {\n    long a, b;\n    readf(\" %d %d\", &a, &b);\n    writeln(a + b);\n}\n"),
}

# Passing and failing stdin/stdout cases for PROGRAMS[...].io
IO_PASS = (("2 3\n", "5\n"), ("10 -4\n", "6\n"))
IO_FAIL = (("2 3\n", "5\n"), ("1 1\n", "3\n"))
