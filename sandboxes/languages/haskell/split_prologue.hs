-- The program's side's first lines: what its codec and dispatcher import, qualified so that no name of the program
-- meets one of them (an import cannot follow the program's declarations).
import qualified Control.Exception as RewardWireException_
import qualified Data.Int as RewardWireInt_
import qualified Data.Map as RewardWireMap_
import qualified Data.Set as RewardWireSet_
import qualified Data.Typeable as RewardSplitTypeable_
import qualified Data.Word as RewardWireWord_
import qualified GHC.Float as RewardWireFloat_
import qualified GHC.IO.Handle.FD as RewardSplitFD_
import qualified Numeric as RewardWireNumeric_
import qualified System.IO as RewardSplitIO_
import qualified System.Posix.Internals as RewardSplitPosix_
