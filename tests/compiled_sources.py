"""Programs that look, at run time, for the source their compile consumed (docs/guards.md: a compiled program's
source is gone before it runs). Each prints 0 when it finds nothing: the function-style tests it would have held are
out of its reach. Both backends' tests grade them."""

from __future__ import annotations

from reward_server.graders.code import CodeJob

SOURCE_SEEKERS = {
    "cpp": "#include <filesystem>\n#include <iostream>\n"
           'int main() { std::cout << std::filesystem::exists("main.cpp"); }\n',
    "java": "public class Main {\n    public static void main(String[] args) {\n"
            '        System.out.print(new java.io.File("Main.java").exists() ? 1 : 0);\n    }\n}\n',
    "go": 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\t_, err := os.Stat("main.go")\n'
          "\tif err == nil {\n\t\tfmt.Print(1)\n\t} else {\n\t\tfmt.Print(0)\n\t}\n}\n",
    "rust": 'fn main() {\n    print!("{}", std::path::Path::new("main.rs").exists() as i32);\n}\n',
    "csharp": "class Program {\n    static void Main() {\n"
              '        System.Console.Write(System.IO.File.Exists("main.cs") ? 1 : 0);\n    }\n}\n',
    # the units its compile script splits the source into are gone too
    "ada": "with Ada.Directories; with Ada.Text_IO;\nprocedure Main is\nbegin\n"
           '   if Ada.Directories.Exists ("units") or Ada.Directories.Exists ("main.adb") then\n'
           '      Ada.Text_IO.Put ("1");\n   else\n      Ada.Text_IO.Put ("0");\n   end if;\nend Main;\n',
}


def source_seeker_jobs() -> dict[str, CodeJob]:
    return {f"{key}/seeks its source": CodeJob(key, program, io_tests=(("", "0"),))
            for key, program in SOURCE_SEEKERS.items()}
