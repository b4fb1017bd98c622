@@codec@@

-- The program's side, after the prompt and the completion: each call read from fd 0, the function called, its reply
-- written on fd 1. What the program prints goes to stderr, never among the replies. (base's dup and dup2: a foreign
-- import of its own would have GHCi compile a C stub, a process the program's side may not start.)

main :: IO ()
main = do
  replies <- RewardSplitPosix_.c_dup 1 >>= RewardSplitFD_.fdToHandle
  _ <- RewardSplitPosix_.c_dup2 2 1
  RewardSplitIO_.hSetBinaryMode replies True
  RewardSplitIO_.hSetBinaryMode RewardSplitIO_.stdin True
  RewardSplitIO_.getContents >>= rewardSplitServe_ replies

rewardSplitServe_ :: RewardSplitIO_.Handle -> String -> IO ()
rewardSplitServe_ replies ('C' : input) | Right (_, arguments) <- rewardWireCount_ input = do
  let (result, rest) = rewardWireServe_ @@entry@@ arguments
  outcome <- RewardWireException_.try (RewardWireException_.evaluate (rewardWireForced_ ('R' : result "l0:")))
  reply <- either rewardSplitRaised_ return outcome
  RewardSplitIO_.hPutStr replies reply >> RewardSplitIO_.hFlush replies
  rewardSplitServe_ replies rest
rewardSplitServe_ _ _ = return ()

-- the exception's type and message (a message that raises in turn crosses as its type alone)
rewardSplitRaised_ :: RewardWireException_.SomeException -> IO String
rewardSplitRaised_ (RewardWireException_.SomeException raised) = do
  message <- RewardWireException_.try (RewardWireException_.evaluate
    (rewardWireForced_ (RewardWireException_.displayException raised)))
  let text = either (const "" . (id :: RewardWireException_.SomeException -> RewardWireException_.SomeException))
                    id message
  return ('X' : rewardWirePut_ (show (RewardSplitTypeable_.typeOf raised)) (rewardWirePut_ text ""))
