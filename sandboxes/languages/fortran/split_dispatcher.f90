@@codec@@
program reward_split_dispatcher
  use reward_split_wire
  use @@module@@, reward_split_entry_ => @@entry@@
  ! the function's arguments, declared as the prompt declares them (compile.sh makes the dummies' declarations
  ! locals' between these two lines)
!reward_split_locals_begin
@@declarations@@
!reward_split_locals_end
  type(reward_split_reader) :: reward_split_calls_
  character(len=:), allocatable :: reward_split_reply_
  integer :: reward_split_replies_
  ! what the program prints goes to stderr, never among the replies
  reward_split_replies_ = reward_split_dup(1)
  if (reward_split_dup2(2, 1) /= 1) call reward_split_fail("stdout")
  reward_split_calls_%fd = 0
  ! the calls read from stdin, each answered on the replies: its result and its arguments after it
  do while (reward_split_peek(reward_split_calls_) == ichar("C"))
    call reward_split_tag(reward_split_calls_, "C")
    if (reward_split_count(reward_split_calls_) /= 0@@count@@) call reward_split_fail("another number of arguments")
@@get@@
    reward_split_reply_ = "R"
    call reward_split_put(reward_split_reply_, reward_split_entry_(@@names@@))
    reward_split_reply_ = reward_split_reply_ // reward_split_counted("l", 0@@count@@)
@@reply@@
    if (allocated(reward_split_refused)) reward_split_reply_ = "X" // reward_split_counted("s", 5) // "Error" &
      // reward_split_counted("s", len(reward_split_refused)) // reward_split_refused
    flush (6)
    call reward_split_write(reward_split_replies_, reward_split_reply_)
  end do
end program reward_split_dispatcher
