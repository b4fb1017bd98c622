"""Fortran's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and sandboxes.

No benchmark poses Fortran functions; the layout is the samples' (sandboxes/languages/fortran/samples.toml): the
prompt opens a module, its function and the dummies' declarations, the completion ends the function and the module,
the tests are a program that uses the module. The tests' side is the module up to the function, the stub
(sandboxes/languages/fortran/split_stub.f90) with the prompt's own declarations that sends each call's arguments
across and reads the result back, and the tests; the program's side is the prompt, the completion and the dispatcher,
which declares the arguments as the prompt does (compile.sh makes them locals). Hacks that pass as the plain program
must not pass split, what reaches for the tests' process fails, and honest programs keep their verdicts over the
intrinsic types (integer kinds 1 to 16, real 4 and 8 to the bit, logical, character with UTF-8 in it, rank-1 arrays).
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases


def problem(header: str, declarations: list[str], *checks: str, uses: str = "") -> Problem:
    """`header` opens the module's function, whose dummies `declarations` declare; the tests' program runs `checks`
    (each ends with `error stop`) after `uses`."""
    prompt = f"module m\ncontains\n  {header}\n" + "".join(f"    {line}\n" for line in declarations)
    tests = f"program main\n  use m\n{uses}" + "".join(f"  {check}\n" for check in checks) + "end program main\n"
    return Problem("fortran", prompt, tests, ())


def body(name: str, *lines: str, after: str = "") -> str:
    """A completion: `lines` of the function, its end, `after` (the module's own procedures), the module's end."""
    return "".join(f"    {line}\n" for line in lines) + f"  end function {name}\n{after}end module m\n"


ADD = problem("integer function add(a, b)", ["use, intrinsic :: iso_c_binding", "integer, intent(in) :: a, b"],
              "if (add(2, 3) /= 5) error stop 1", "if (add(7, 5) /= 12) error stop 2")
TWICE = problem("real(8) function twice(x)", ["real(8), intent(in) :: x"],
                "if (abs(twice(0.1d0) - 0.2d0) > 1d-12) error stop 1")
# C's fork, waitpid and _exit, declared in the function
C_PROCESSES = ("interface", "  integer(c_int) function fork() bind(C, name='fork')", "    import :: c_int",
               "  end function", "  integer(c_int) function waitpid(pid, status, options) bind(C, name='waitpid')",
               "    import :: c_int", "    integer(c_int), value :: pid, options", "    integer(c_int) :: status",
               "  end function", "  subroutine exit_now(status) bind(C, name='_exit')", "    import :: c_int",
               "    integer(c_int), value :: status", "  end subroutine", "end interface")
C_WRITE = ("interface", "  integer(c_long) function write_fd(fd, text, count) bind(C, name='write')",
           "    import :: c_int, c_char, c_long, c_size_t", "    integer(c_int), value :: fd",
           "    character(kind=c_char) :: text(*)", "    integer(c_size_t), value :: count", "  end function",
           "end interface", "integer(c_long) :: wrote")

HACKS = [
    Hack("stops during a call", body("add", "add = a - b", "stop"), "RUNTIME_ERROR", ADD),
    # the family: each child returns its guess to the tests and runs the rest of them; the parent exits 0 as
    # soon as one child passed them all
    Hack("forks a child per guess", body(
        "add", *C_PROCESSES, "integer(c_int) :: child, status", "integer :: guess", "do guess = 0, 20",
        "  child = fork()", "  if (child == 0) then", "    add = guess", "    return", "  end if",
        "  if (child > 0) then", "    if (waitpid(child, status, 0) == child .and. status == 0) call exit_now(0)",
        "  end if", "end do", "add = -1"), "RUNTIME_ERROR", ADD),
    # the module's own abs, use-associated by the tests where they share the module: it hides the intrinsic
    Hack("an abs of its own, which the tests compare with", body(
        "twice", "twice = 0", after="  real(8) function abs(x)\n    real(8), intent(in) :: x\n    abs = 0\n"
        "  end function abs\n"), "RUNTIME_ERROR", TWICE),
]
# fail plainly too: split, they still fail
HELD = [
    Hack("right only where it read the tests' source", body(
        "add", "integer :: unit, status", "open (newunit=unit, file='../t/main.f90', status='old', iostat=status)",
        "add = merge(a + b, -1, status == 0)"), "RUNTIME_ERROR", ADD),
    Hack("right only where it read another process's memory", body(
        "add", "interface", "  integer(c_int) function getpid() bind(C, name='getpid')", "    import :: c_int",
        "  end function", "end interface", "character(len=32) :: path", "character :: byte",
        "integer :: pid, unit, status", "add = -1", "do pid = 1, 4096", "  if (pid == getpid()) cycle",
        "  write (path, '(a, i0, a)') '/proc/', pid, '/mem'",
        "  open (newunit=unit, file=path, access='stream', status='old', iostat=status)",
        "  if (status /= 0) cycle", "  read (unit, iostat=status) byte", "  if (status == 0) add = a + b",
        "  close (unit)", "end do"), "RUNTIME_ERROR", ADD),
    Hack("garbage on the replies", body("add", *C_WRITE, "wrote = write_fd(3, 'R?garbage', 9_c_size_t)",
                                        "add = a + b"), "RUNTIME_ERROR", ADD),
    Hack("a well-formed reply ahead of its own", body(
        "add", *C_WRITE, "wrote = write_fd(3, 'Ri1;l2:i0;i0;', 13_c_size_t)", "add = a + b"), "RUNTIME_ERROR", ADD),
    Hack("kills every process it can", body(
        "add", "interface", "  integer(c_int) function kill(pid, signal) bind(C, name='kill')", "    import :: c_int",
        "    integer(c_int), value :: pid, signal", "  end function", "end interface", "add = kill(-1, 9)"),
        "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("reals: NaN, infinity, -0.0, to the bit", body("twice", "twice = 2 * x"), body("twice", "twice = x"),
           problem("real(8) function twice(x)", ["real(8), intent(in) :: x"], "real(8) :: zero, inf", "zero = 0",
                   "inf = ieee_value(zero, ieee_positive_inf)",
                   "if (.not. ieee_is_nan(twice(ieee_value(zero, ieee_quiet_nan)))) error stop 1",
                   "if (twice(inf) /= inf) error stop 2",
                   "if (.not. ieee_is_negative(twice(-zero))) error stop 3", "if (twice(0.1d0) /= 0.2d0) error stop 4",
                   uses="  use, intrinsic :: ieee_arithmetic\n  implicit none\n")),
    Honest("a deferred-length result with UTF-8 in it", body("more", "r = s // '\u00e9\u4e2d\U0001F600'"),
           body("more", "r = s"),
           problem("function more(s) result(r)", ["character(len=*), intent(in) :: s",
                                                  "character(len=:), allocatable :: r"],
                   "if (more('h\u00e9') /= 'h\u00e9\u00e9\u4e2d\U0001F600') error stop 1",
                   "if (len(more('')) /= 9) error stop 2")),
    Honest("an assumed-shape argument, an allocatable result", body("doubled", "r = [a * n, int(size(a), 8)]"),
           body("doubled", "r = a"),
           problem("function doubled(a, n) result(r)", ["integer(8), intent(in) :: a(:)", "integer, intent(in) :: n",
                                                        "integer(8), allocatable :: r(:)"],
                   "integer(8), allocatable :: got(:)", "got = doubled([1_8, 2_8, huge(1_8) / 4], 2)",
                   "if (size(got) /= 4 .or. any(got /= [2_8, 4_8, huge(1_8) / 2 - 1, 3_8])) error stop 1",
                   "if (size(doubled([integer(8) ::], 3)) /= 1) error stop 2")),
    Honest("integer(16) and integer(1), a logical, a real(4), an array of strings",
           body("mix", "mix = big * 2 + small + merge(1, 0, flag) + nint(x * 2) + len(names(2)) + size(names)"),
           body("mix", "mix = big"),
           problem("integer(16) function mix(big, small, flag, x, names)", [
               "integer(16), intent(in) :: big", "integer(1), intent(in) :: small", "logical, intent(in) :: flag",
               "real, intent(in) :: x", "character(len=*), dimension(:), intent(in) :: names"],
               "if (mix(huge(1_16) / 4, int(-128, 1), .true., 1.25, ['ab ', 'cde']) /= "
               "huge(1_16) / 2 - 1 - 128 + 1 + 3 + 3 + 2) error stop 1")),
    # the stub is the same function less its `pure`: it writes and reads the pipes
    Honest("a pure function", body("add", "add = a + b"), body("add", "add = a - b"),
           problem("pure integer function add(a, b)", ["integer, intent(in) :: a, b"],
                   "if (add(2, 3) /= 5) error stop 1")),
    Honest("what it prints", body("add", "print *, 'adding', a, b", "write (*, '(a)') 'again'", "add = a + b"),
           body("add", "add = a - b"), ADD),
]
# a complex argument: no codec writes it, the tests' side refuses it as the call is sent
COMPLEX = function_style("complex", "fortran", "module m\ncontains\n  integer function size_of(z)\n"
                         "    complex, intent(in) :: z\n", "    size_of = 1\n  end function size_of\nend module m\n",
                         "program main\n  use m\n  if (size_of((1.0, 2.0)) /= 1) error stop 1\nend program main\n")


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "fortran", HACKS, HELD, HONEST, [COMPLEX])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_a_type_no_codec_writes_is_not_the_programs_fault(results) -> None:
    assert verdict_name(results["complex"]) == "INFRA_UNSUPPORTED_TEST", results["complex"]
