@@codec@@
module @@module@@
  use reward_split_wire
@@between@@@@indent@@@@signature@@
@@declarations@@
    character(len=:), allocatable :: reward_split_call_
    type(reward_split_reader), save :: reward_split_replies_
    character :: reward_split_tag_
    integer :: reward_split_argument_
    ! one call sent to the program (fd 3), its reply read back (fd 4): the result; the arguments after it, dropped
    reward_split_call_ = reward_split_counted("C", 0@@count@@)
@@put@@
    if (allocated(reward_split_refused)) then
      call reward_split_write(2, "@@unsupported@@" // reward_split_refused // new_line("a"))
      call reward_split_exit(1)
    end if
    call reward_split_write(3, reward_split_call_)
    reward_split_replies_%fd = 4
    reward_split_tag_ = reward_split_next(reward_split_replies_)
    if (reward_split_tag_ == "X") then     ! its kind, then its message
      call reward_split_get(reward_split_replies_, reward_split_call_)
      call reward_split_get(reward_split_replies_, reward_split_call_)
      call reward_split_fail("the program could not answer: " // reward_split_call_)
    end if
    if (reward_split_tag_ /= "R") call reward_split_fail("the program's reply is not a value")
    call reward_split_get(reward_split_replies_, @@result@@@@bare@@)
    call reward_split_tag(reward_split_replies_, "l")
    if (reward_split_count(reward_split_replies_) /= 0@@count@@) call reward_split_fail("the arguments after the call")
    do reward_split_argument_ = 1, 0@@count@@
      call reward_split_skip(reward_split_replies_)
    end do
  end function @@entry@@
end module @@module@@
