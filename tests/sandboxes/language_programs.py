"""One small program per language: reads a line, prints "hello <line>", fails at run time on "boom".

One program covers both the passing and the failing run, so each compiled language compiles once.
"""

GREETERS = {
    "python": """\
import sys
line = sys.stdin.readline().strip()
assert line != "boom", "boom"
print("hello " + line)
""",
    "cpp": """\
#include <iostream>
#include <stdexcept>
#include <string>
int main() {
    std::string s;
    std::getline(std::cin, s);
    if (s == "boom") throw std::runtime_error("boom");
    std::cout << "hello " << s << std::endl;
}
""",
    "java": """\
import java.util.Scanner;

class Solution {
    String greet(String s) {
        if (s.equals("boom")) throw new RuntimeException("boom");
        return "hello " + s;
    }
}

public class Main {
    public static void main(String[] args) {
        String s = new Scanner(System.in).nextLine().trim();
        System.out.println(new Solution().greet(s));
    }
}
""",
    "javascript": """\
const s = require("fs").readFileSync(0, "utf8").trim();
if (s === "boom") throw new Error("boom");
console.log("hello " + s);
""",
    "typescript": """\
const s: string = require("fs").readFileSync(0, "utf8").trim();
function greet(name: string): string {
    if (name === "boom") { throw new Error("boom"); }
    return "hello " + name;
}
console.log(greet(s));
""",
    "rust": """\
use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let s = s.trim();
    if s == "boom" { panic!("boom"); }
    println!("hello {}", s);
}
""",
    "go": """\
package main

import (
    "bufio"
    "fmt"
    "os"
    "strings"
)

func main() {
    s, _ := bufio.NewReader(os.Stdin).ReadString('\\n')
    s = strings.TrimSpace(s)
    if s == "boom" {
        panic("boom")
    }
    fmt.Println("hello " + s)
}
""",
    "ruby": """\
s = STDIN.read.strip
raise "boom" if s == "boom"
puts "hello #{s}"
""",
    "php": """\
<?php
$s = trim(stream_get_contents(STDIN));
if ($s === "boom") { throw new Exception("boom"); }
echo "hello $s\\n";
""",
    "perl": """\
my $s = <STDIN>;
chomp $s;
die "boom" if $s eq "boom";
print "hello $s\\n";
""",
    "bash": """\
read -r s
if [ "$s" = boom ]; then exit 4; fi
echo "hello $s"
""",
    "lua": """\
local s = io.read("l")
if s == "boom" then error("boom") end
print("hello " .. s)
""",
    "r": """\
s <- trimws(readLines(file("stdin"), n = 1))
if (s == "boom") stop("boom")
cat(paste0("hello ", s), "\\n", sep = "")
""",
    "fortran": """\
program main
  character(len=100) :: s
  read(*, '(A)') s
  if (trim(s) == 'boom') error stop 3
  print '(A)', 'hello ' // trim(s)
end program main
""",
    "csharp": """\
using System;
class Program {
    static void Main() {
        var s = Console.ReadLine().Trim();
        if (s == "boom") throw new Exception("boom");
        Console.WriteLine("hello " + s);
    }
}
""",
    "scala": """\
case class Greeting(text: String)
object Solution {
  def main(args: Array[String]): Unit = {
    val s = scala.io.StdIn.readLine().trim
    if (s == "boom") throw new RuntimeException("boom")
    println(Greeting("hello " + s).text)
  }
}
""",
    "kotlin": """\
fun main() {
    val s = readLine()!!.trim()
    if (s == "boom") throw RuntimeException("boom")
    println("hello " + s)
}
""",
    "ocaml": """\
let () =
  let s = String.trim (input_line stdin) in
  if s = "boom" then failwith "boom" else print_endline ("hello " ^ s)
""",
    "racket": """\
#lang racket
(define s (string-trim (read-line)))
(when (equal? s "boom") (error "boom"))
(displayln (string-append "hello " s))
""",
    "julia": """\
s = strip(readline())
s == "boom" && error("boom")
println("hello ", s)
""",
    "d": """\
import std.stdio, std.string;
void main() {
    auto s = readln().strip();
    if (s == "boom") throw new Exception("boom");
    writeln("hello ", s);
}
""",
    "swift": """\
let s = readLine()!
if s == "boom" { fatalError("boom") }
print("hello " + s)
""",
    "haskell": """\
main :: IO ()
main = do
  s <- getLine
  if s == "boom" then error "boom" else putStrLn ("hello " ++ s)
""",
}
