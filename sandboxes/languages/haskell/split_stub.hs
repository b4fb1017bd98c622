-- The tests' side, in place of the prompt's function from its signature on: what the codec and the stub import
-- (the prompt before it is comments), the codec, and the function, whose every call is sent across.
import qualified Control.Exception as RewardWireException_
import qualified Data.Int as RewardWireInt_
import qualified Data.IORef as RewardSplitRef_
import qualified Data.Map as RewardWireMap_
import qualified Data.Set as RewardWireSet_
import qualified Data.Word as RewardWireWord_
import qualified Foreign.C.Types as RewardSplitC_
import qualified GHC.Float as RewardWireFloat_
import qualified GHC.IO.Handle.FD as RewardSplitFD_
import qualified Numeric as RewardWireNumeric_
import qualified System.Exit as RewardSplitExit_
import qualified System.IO as RewardSplitIO_
import qualified System.IO.Unsafe as RewardSplitUnsafe_

@@codec@@

-- One call: its arguments written on fd 3, the reply read back from fd 4 (once the arguments are whole: one of them
-- may call the function itself).
rewardSplitExchange_ :: RewardWireExchange_
rewardSplitExchange_ arguments = RewardSplitUnsafe_.unsafePerformIO (do
  call <- RewardWireException_.try (RewardWireException_.evaluate
    (rewardWireForced_ (rewardWireItems_ 'C' (length arguments) (map showString arguments) "")))
  case call of
    Left (RewardWireUnsupported_ what) -> do
      RewardSplitIO_.hPutStrLn RewardSplitIO_.stderr ("@@unsupported@@" ++ what)
      RewardSplitExit_.exitWith (RewardSplitExit_.ExitFailure 1)
    Right text -> do
      sent <- RewardWireException_.try (RewardSplitIO_.hPutStr rewardSplitCalls_ text
                                        >> RewardSplitIO_.hFlush rewardSplitCalls_)
      input <- RewardSplitRef_.readIORef rewardSplitReplies_
      case (sent, rewardSplitReply_ input) of
        (Right (), Right (reply, rest)) -> RewardSplitRef_.writeIORef rewardSplitReplies_ rest >> return reply
        (Right (), Left why) | not (null input) -> error ("the program's reply is not a value: " ++ why)
        (outcome, _) -> const (error "the program ended during a call")
                              (outcome :: Either RewardWireException_.IOException ()))
{-# NOINLINE rewardSplitExchange_ #-}

rewardSplitReply_ :: RewardWireReader_ RewardWireReply_
rewardSplitReply_ ('R' : input) = do
  (result, afterResult) <- rewardWireRaw_ input
  (_, rest) <- rewardWireRaw_ afterResult       -- the arguments after the call: Haskell's do not change
  Right (RewardWireReturned_ result, rest)
rewardSplitReply_ ('X' : input) = do
  (name, afterName) <- rewardWireTake_ input
  (message, rest) <- rewardWireTake_ afterName
  Right (RewardWireRaised_ name message, rest)
rewardSplitReply_ input = rewardWireUnexpected_ "a reply" input

rewardSplitCalls_ :: RewardSplitIO_.Handle
rewardSplitCalls_ = RewardSplitUnsafe_.unsafePerformIO (rewardSplitBinary_ 3)
{-# NOINLINE rewardSplitCalls_ #-}

-- what the program has written and the stub not yet read
rewardSplitReplies_ :: RewardSplitRef_.IORef String
rewardSplitReplies_ = RewardSplitUnsafe_.unsafePerformIO
  (rewardSplitBinary_ 4 >>= RewardSplitIO_.hGetContents >>= RewardSplitRef_.newIORef)
{-# NOINLINE rewardSplitReplies_ #-}

rewardSplitBinary_ :: RewardSplitC_.CInt -> IO RewardSplitIO_.Handle
rewardSplitBinary_ descriptor = do
  handle <- RewardSplitFD_.fdToHandle descriptor
  RewardSplitIO_.hSetBinaryMode handle True
  return handle

@@entry@@ :: @@signature@@
@@entry@@ = rewardWireCall_ rewardSplitExchange_ []
