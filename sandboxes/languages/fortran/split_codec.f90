! The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer. Any value is written
! (an assumed-rank class(*): its type and rank are looked up as it runs); a value is read into a variable of the type
! the prompt declares, through the generic reward_split_get: integers of kinds 1, 2, 4, 8 and 16, reals of kinds 4
! and 8 (binary64 bits: a real(4) widens exactly and narrows back), logicals, character strings (UTF-8 bytes), each
! as a scalar or a rank-1 array (allocatable: its size is the value's). A value of another type or rank is not
! written: reward_split_refused says why, and the tests' side says it cannot send it. A variable the prompt declares of
! a type with no reader here (a derived type, a fixed-length character result, a rank-2 array) does not compile.
module reward_split_wire
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_long, c_size_t
  implicit none
  private
  public :: reward_split_reader, reward_split_peek, reward_split_next, reward_split_tag, reward_split_count
  public :: reward_split_put, reward_split_get, reward_split_skip, reward_split_counted, reward_split_write
  public :: reward_split_fail, reward_split_exit, reward_split_dup, reward_split_dup2, reward_split_refused

  type :: reward_split_reader
    integer(c_int) :: fd = 0
    character(kind=c_char) :: buffer(65536)
    integer :: at = 1, end = 0
  end type

  character(len=:), allocatable :: reward_split_refused

  interface
    function c_read(fd, buffer, count) bind(C, name="read")
      import :: c_int, c_char, c_size_t, c_long
      integer(c_int), value :: fd
      character(kind=c_char) :: buffer(*)
      integer(c_size_t), value :: count
      integer(c_long) :: c_read
    end function
    function c_write(fd, buffer, count) bind(C, name="write")
      import :: c_int, c_char, c_size_t, c_long
      integer(c_int), value :: fd
      character(kind=c_char) :: buffer(*)
      integer(c_size_t), value :: count
      integer(c_long) :: c_write
    end function
    function reward_split_dup(fd) bind(C, name="dup")
      import :: c_int
      integer(c_int), value :: fd
      integer(c_int) :: reward_split_dup
    end function
    function reward_split_dup2(fd, to) bind(C, name="dup2")
      import :: c_int
      integer(c_int), value :: fd, to
      integer(c_int) :: reward_split_dup2
    end function
    subroutine reward_split_exit(status) bind(C, name="_exit")
      import :: c_int
      integer(c_int), value :: status
    end subroutine
  end interface

  interface reward_split_get
    module procedure get_i1, get_i2, get_i4, get_i8, get_i16, get_r4, get_r8, get_l1, get_l2, get_l4, get_l8, &
      get_s, get_i1s, get_i2s, get_i4s, get_i8s, get_i16s, get_r4s, get_r8s, get_l1s, get_l2s, get_l4s, get_l8s, &
      get_ss, get_c4, get_c8
  end interface

contains

  ! the tests cannot go on: why, on stderr, and their failure
  subroutine reward_split_fail(why)
    character(len=*), intent(in) :: why
    call reward_split_write(2, "reward_split: " // why // new_line("a"))
    call reward_split_exit(1_c_int)
  end subroutine

  subroutine reward_split_write(fd, text)
    integer, intent(in) :: fd
    character(len=*), intent(in) :: text
    integer :: at
    integer(c_long) :: wrote
    at = 1
    do while (at <= len(text))
      wrote = c_write(int(fd, c_int), transfer(text(at:), "a", len(text) - at + 1), int(len(text) - at + 1, c_size_t))
      if (wrote <= 0) call reward_split_fail("the program ended during a call")
      at = at + int(wrote)
    end do
  end subroutine

  ! the next byte's code, or -1 at the end of the input
  integer function reward_split_peek(in)
    type(reward_split_reader), intent(inout) :: in
    integer(c_long) :: got
    if (in%at > in%end) then
      got = c_read(in%fd, in%buffer, int(size(in%buffer), c_size_t))
      if (got <= 0) then
        reward_split_peek = -1
        return
      end if
      in%at = 1
      in%end = int(got)
    end if
    reward_split_peek = ichar(in%buffer(in%at))
  end function

  character function reward_split_next(in)
    type(reward_split_reader), intent(inout) :: in
    if (reward_split_peek(in) < 0) call reward_split_fail("the program ended during a call")
    reward_split_next = in%buffer(in%at)
    in%at = in%at + 1
  end function

  subroutine reward_split_tag(in, expected)
    type(reward_split_reader), intent(inout) :: in
    character, intent(in) :: expected
    if (reward_split_next(in) /= expected) call reward_split_fail("the reply is not a value of the declared type")
  end subroutine

  ! the digits up to `stop`, as an integer (a count, or an integer value: `negative` allowed)
  integer(16) function number(in, stop, negative)
    type(reward_split_reader), intent(inout) :: in
    character, intent(in) :: stop
    logical, intent(in) :: negative
    character :: c
    integer :: digits, sign
    number = 0
    digits = 0
    sign = 1
    if (negative .and. reward_split_peek(in) == ichar("-")) then
      c = reward_split_next(in)
      sign = -1
    end if
    do
      c = reward_split_next(in)
      if (c == stop) exit
      if (c < "0" .or. c > "9" .or. abs(number) > (huge(number) - 9) / 10) call reward_split_fail("not a number")
      number = number * 10 + sign * (ichar(c) - ichar("0"))
      digits = digits + 1
    end do
    if (digits == 0) call reward_split_fail("a number without digits")
  end function

  integer function reward_split_count(in)
    type(reward_split_reader), intent(inout) :: in
    integer(16) :: count
    count = number(in, ":", .false.)
    if (count > huge(reward_split_count)) call reward_split_fail("a count too large")
    reward_split_count = int(count)
  end function

  function reward_split_counted(tag, count) result(text)
    character, intent(in) :: tag
    integer, intent(in) :: count
    character(len=:), allocatable :: text
    character(len=12) :: digits
    write (digits, "(I0)") count
    text = tag // trim(digits) // ":"
  end function

  function integer_text(value) result(text)
    integer(16), intent(in) :: value
    character(len=:), allocatable :: text
    character(len=48) :: digits
    write (digits, "(I0)") value
    text = "i" // trim(digits) // ";"
  end function

  function real_text(value) result(text)
    real(8), intent(in) :: value
    character(len=17) :: text
    integer(8) :: bits
    integer :: i
    bits = transfer(value, bits)
    text(1:1) = "d"
    do i = 17, 2, -1
      text(i:i) = "0123456789abcdef"(iand(bits, 15_8) + 1:iand(bits, 15_8) + 1)
      bits = ishft(bits, -4)
    end do
  end function

  subroutine reward_split_put(out, value)
    character(len=:), allocatable, intent(inout) :: out
    class(*), intent(in) :: value(..)
    integer :: i
    select rank (value)
    rank (0)
      call put_scalar(out, value)
    rank (1)
      out = out // reward_split_counted("l", size(value))
      do i = lbound(value, 1), ubound(value, 1)
        call put_scalar(out, value(i))
      end do
    rank default
      reward_split_refused = "an array of rank above 1"
    end select
  end subroutine

  subroutine put_scalar(out, value)
    character(len=:), allocatable, intent(inout) :: out
    class(*), intent(in) :: value
    select type (value)
    type is (integer(1)); out = out // integer_text(int(value, 16))
    type is (integer(2)); out = out // integer_text(int(value, 16))
    type is (integer(4)); out = out // integer_text(int(value, 16))
    type is (integer(8)); out = out // integer_text(int(value, 16))
    type is (integer(16)); out = out // integer_text(value)
    type is (real(4)); out = out // real_text(real(value, 8))
    type is (real(8)); out = out // real_text(value)
    type is (logical(1)); out = out // merge("T", "F", logical(value))
    type is (logical(2)); out = out // merge("T", "F", logical(value))
    type is (logical(4)); out = out // merge("T", "F", logical(value))
    type is (logical(8)); out = out // merge("T", "F", logical(value))
    type is (character(len=*)); out = out // reward_split_counted("s", len(value)) // value
    class default; reward_split_refused = "a Fortran type that does not cross"
    end select
  end subroutine

  integer(16) function integer_value(in, low, high)
    type(reward_split_reader), intent(inout) :: in
    integer(16), intent(in) :: low, high
    call reward_split_tag(in, "i")
    integer_value = number(in, ";", .true.)
    if (integer_value < low .or. integer_value > high) call reward_split_fail("a number that does not fit its kind")
  end function

  real(8) function real_value(in)
    type(reward_split_reader), intent(inout) :: in
    integer(8) :: bits
    integer :: i, digit
    character :: c
    call reward_split_tag(in, "d")
    bits = 0
    do i = 1, 16
      c = reward_split_next(in)
      digit = index("0123456789abcdef", c) - 1
      if (digit < 0) call reward_split_fail("not a float's bits")
      bits = ior(ishft(bits, 4), int(digit, 8))
    end do
    real_value = transfer(bits, real_value)
  end function

  logical function logical_value(in)
    type(reward_split_reader), intent(inout) :: in
    character :: c
    c = reward_split_next(in)
    if (c /= "T" .and. c /= "F") call reward_split_fail("not a logical")
    logical_value = c == "T"
  end function

  subroutine get_i1(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(1), intent(out) :: value
    value = int(integer_value(in, -huge(value) - 1_16, int(huge(value), 16)), 1)
  end subroutine
  subroutine get_i2(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(2), intent(out) :: value
    value = int(integer_value(in, -huge(value) - 1_16, int(huge(value), 16)), 2)
  end subroutine
  subroutine get_i4(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(4), intent(out) :: value
    value = int(integer_value(in, -huge(value) - 1_16, int(huge(value), 16)), 4)
  end subroutine
  subroutine get_i8(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(8), intent(out) :: value
    value = int(integer_value(in, -huge(value) - 1_16, int(huge(value), 16)), 8)
  end subroutine
  subroutine get_i16(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(16), intent(out) :: value
    value = integer_value(in, -huge(value) - 1_16, huge(value))
  end subroutine
  subroutine get_r4(in, value)
    type(reward_split_reader), intent(inout) :: in
    real(4), intent(out) :: value
    value = real(real_value(in), 4)
  end subroutine
  subroutine get_r8(in, value)
    type(reward_split_reader), intent(inout) :: in
    real(8), intent(out) :: value
    value = real_value(in)
  end subroutine
  subroutine get_l1(in, value)
    type(reward_split_reader), intent(inout) :: in
    logical(1), intent(out) :: value
    value = logical_value(in)
  end subroutine
  subroutine get_l2(in, value)
    type(reward_split_reader), intent(inout) :: in
    logical(2), intent(out) :: value
    value = logical_value(in)
  end subroutine
  subroutine get_l4(in, value)
    type(reward_split_reader), intent(inout) :: in
    logical(4), intent(out) :: value
    value = logical_value(in)
  end subroutine
  subroutine get_l8(in, value)
    type(reward_split_reader), intent(inout) :: in
    logical(8), intent(out) :: value
    value = logical_value(in)
  end subroutine
  subroutine get_s(in, value)
    type(reward_split_reader), intent(inout) :: in
    character(len=:), allocatable, intent(inout) :: value
    integer :: i
    call reward_split_tag(in, "s")
    if (allocated(value)) deallocate (value)
    allocate (character(len=reward_split_count(in)) :: value)
    do i = 1, len(value)
      value(i:i) = reward_split_next(in)
    end do
  end subroutine

  ! a complex argument compiles on the program's side, but the tests' side refuses it before the call
  subroutine get_c4(in, value)
    type(reward_split_reader), intent(inout) :: in
    complex(4), intent(out) :: value
    value = 0
    call reward_split_fail("a complex does not cross")
  end subroutine
  subroutine get_c8(in, value)
    type(reward_split_reader), intent(inout) :: in
    complex(8), intent(out) :: value
    value = 0
    call reward_split_fail("a complex does not cross")
  end subroutine

  ! an array: its size read first, each item into it
  integer function items(in)
    type(reward_split_reader), intent(inout) :: in
    call reward_split_tag(in, "l")
    items = reward_split_count(in)
  end function

  subroutine get_i1s(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(1), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_i1(in, value(i))
    end do
  end subroutine
  subroutine get_i2s(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(2), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_i2(in, value(i))
    end do
  end subroutine
  subroutine get_i4s(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(4), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_i4(in, value(i))
    end do
  end subroutine
  subroutine get_i8s(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(8), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_i8(in, value(i))
    end do
  end subroutine
  subroutine get_i16s(in, value)
    type(reward_split_reader), intent(inout) :: in
    integer(16), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_i16(in, value(i))
    end do
  end subroutine
  subroutine get_r4s(in, value)
    type(reward_split_reader), intent(inout) :: in
    real(4), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_r4(in, value(i))
    end do
  end subroutine
  subroutine get_r8s(in, value)
    type(reward_split_reader), intent(inout) :: in
    real(8), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_r8(in, value(i))
    end do
  end subroutine
  subroutine get_l1s(in, value)
    type(reward_split_reader), intent(inout) :: in
    logical(1), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_l1(in, value(i))
    end do
  end subroutine
  subroutine get_l2s(in, value)
    type(reward_split_reader), intent(inout) :: in
    logical(2), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_l2(in, value(i))
    end do
  end subroutine
  subroutine get_l4s(in, value)
    type(reward_split_reader), intent(inout) :: in
    logical(4), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_l4(in, value(i))
    end do
  end subroutine
  subroutine get_l8s(in, value)
    type(reward_split_reader), intent(inout) :: in
    logical(8), allocatable, intent(inout) :: value(:)
    integer :: i
    if (allocated(value)) deallocate (value)
    allocate (value(items(in)))
    do i = 1, size(value)
      call get_l8(in, value(i))
    end do
  end subroutine
  ! strings of one array share a length: the longest, the others padded with blanks (as Fortran pads them)
  subroutine get_ss(in, value)
    type(reward_split_reader), intent(inout) :: in
    character(len=:), allocatable, intent(inout) :: value(:)
    type :: text
      character(len=:), allocatable :: chars
    end type
    type(text), allocatable :: read_(:)
    integer :: i, longest
    allocate (read_(items(in)))
    longest = 0
    do i = 1, size(read_)
      call get_s(in, read_(i)%chars)
      longest = max(longest, len(read_(i)%chars))
    end do
    if (allocated(value)) deallocate (value)
    allocate (character(len=longest) :: value(size(read_)))
    do i = 1, size(read_)
      value(i) = read_(i)%chars
    end do
  end subroutine

  ! one value of any shape read and dropped (an argument after the call)
  recursive subroutine reward_split_skip(in)
    type(reward_split_reader), intent(inout) :: in
    character :: tag
    integer :: count, i
    tag = reward_split_next(in)
    select case (tag)
    case ("N", "U", "T", "F")
    case ("i")
      do while (reward_split_next(in) /= ";")
      end do
    case ("d")
      do i = 1, 16
        tag = reward_split_next(in)
      end do
    case ("s", "c", "y")
      do i = 1, reward_split_count(in)
        tag = reward_split_next(in)
      end do
    case ("l", "t", "e", "m")
      count = reward_split_count(in)
      if (tag == "m") count = 2 * count
      do i = 1, count
        call reward_split_skip(in)
      end do
    case default
      call reward_split_fail("not a value of the wire format")
    end select
  end subroutine
end module reward_split_wire
