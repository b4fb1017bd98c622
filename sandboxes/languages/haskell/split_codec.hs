-- The wire format (docs/guards.md, "Values across the pipe"), both sides' writer and reader: data only, into base's
-- own types (and containers' Map and Set), by the type the prompt's signature declares. A byte is a Char below 256
-- (both descriptors are in binary mode). Every name starts with rewardWire so that none meets the program's or the
-- tests'; the imports are the side's first lines, qualified (the prologue, the stub).

-- what follows in the input, read into a value and the input after it, or why not
type RewardWireReader_ a = String -> Either String (a, String)

-- what came back from a call: the result's encoding, or the type and message of the exception it raised
data RewardWireReply_ = RewardWireReturned_ String | RewardWireRaised_ String String

-- the tests' side of one call: its arguments' encodings sent across, the reply read back
type RewardWireExchange_ = [String] -> RewardWireReply_

-- a value the wire cannot carry (a function passed as an argument)
newtype RewardWireUnsupported_ = RewardWireUnsupported_ String deriving Show
instance RewardWireException_.Exception RewardWireUnsupported_

class RewardWire_ a where
  rewardWirePut_ :: a -> ShowS
  rewardWireTake_ :: RewardWireReader_ a
  -- lists as Show's showList has them: a list of Char is a string
  rewardWirePutList_ :: [a] -> ShowS
  rewardWirePutList_ items = rewardWireItems_ 'l' (length items) (map rewardWirePut_ items)
  rewardWireTakeList_ :: RewardWireReader_ [a]
  rewardWireTakeList_ = rewardWireCounted_ 'l' (\count -> rewardWireMany_ count rewardWireTake_)
  -- the entry function's type, one argument at a time: its call sent across (the tests' stub) and a call of it
  -- answered, its arguments read from the input (the program's dispatcher); a value's own type ends both
  rewardWireCall_ :: RewardWireExchange_ -> [String] -> a
  rewardWireCall_ exchange arguments = rewardWireResult_ (exchange (reverse arguments))
  rewardWireServe_ :: a -> String -> (ShowS, String)
  rewardWireServe_ value input = (rewardWirePut_ value, input)

instance (RewardWire_ a, RewardWire_ b) => RewardWire_ (a -> b) where
  rewardWirePut_ _ = RewardWireException_.throw (RewardWireUnsupported_ "a function as an argument")
  rewardWireTake_ _ = Left "a function does not cross"
  rewardWireCall_ exchange arguments argument = rewardWireCall_ exchange (rewardWirePut_ argument "" : arguments)
  rewardWireServe_ function input = case rewardWireTake_ input of
    Right (argument, rest) -> rewardWireServe_ (function argument) rest
    Left why -> error ("the call's argument is not a value: " ++ why)

rewardWireResult_ :: RewardWire_ a => RewardWireReply_ -> a
rewardWireResult_ (RewardWireReturned_ encoded) = case rewardWireTake_ encoded of
  Right (value, "") -> value
  Right _ -> error "the program's reply holds more than its value"
  Left why -> error ("the program's reply is not a value of the declared type: " ++ why)
rewardWireResult_ (RewardWireRaised_ "ErrorCall" message) = RewardWireException_.throw (RewardWireException_.ErrorCall message)
rewardWireResult_ (RewardWireRaised_ name message) =
  RewardWireException_.throw (RewardWireException_.ErrorCall ("the function raised " ++ name ++ ": " ++ message))

-- the string fully evaluated (what raises in it raises here, not later)
rewardWireForced_ :: String -> String
rewardWireForced_ text = foldr seq () text `seq` text

rewardWireItems_ :: Char -> Int -> [ShowS] -> ShowS
rewardWireItems_ tag count items = showChar tag . shows count . showChar ':' . foldr (.) id items

rewardWireUnexpected_ :: String -> String -> Either String b
rewardWireUnexpected_ wanted (tag : _) = Left (show tag ++ " where the type wants " ++ wanted)
rewardWireUnexpected_ _ [] = Left "the other side ended in the middle of a value"

-- the text up to `end`, and what follows it
rewardWireUntil_ :: Char -> RewardWireReader_ String
rewardWireUntil_ end input = case break (== end) input of
  (text, _ : rest) -> Right (text, rest)
  _ -> Left "the other side ended in the middle of a value"

rewardWireCount_ :: RewardWireReader_ Int
rewardWireCount_ input = do
  (digits, rest) <- rewardWireUntil_ ':' input
  if not (null digits) && all (`elem` "0123456789") digits && length digits < 10
    then Right (read digits, rest) else Left ("a count that is not one: " ++ show digits)

-- a value of `tag` whose count comes first, read by `items`
rewardWireCounted_ :: Char -> (Int -> RewardWireReader_ a) -> RewardWireReader_ a
rewardWireCounted_ tag items (found : input) | found == tag = rewardWireCount_ input >>= uncurry items
rewardWireCounted_ tag _ input = rewardWireUnexpected_ [tag] input

rewardWireMany_ :: Int -> RewardWireReader_ a -> RewardWireReader_ [a]
rewardWireMany_ 0 _ input = Right ([], input)
rewardWireMany_ count item input = do
  (first, rest) <- item input
  (others, after) <- rewardWireMany_ (count - 1) item rest
  Right (first : others, after)

rewardWireBytes_ :: Int -> RewardWireReader_ String
rewardWireBytes_ count input = case splitAt count input of
  (bytes, rest) | length bytes == count -> Right (bytes, rest)
  _ -> Left "the other side ended in the middle of a value"

-- One value of any type, as its encoding: what a reply holds before it is read by the declared type.
rewardWireRaw_ :: RewardWireReader_ String
rewardWireRaw_ (tag : input)
  | tag `elem` "NUTF" = Right ([tag], input)
  | tag == 'i' = rewardWireUntil_ ';' input >>= \(digits, rest) -> Right (tag : digits ++ ";", rest)
  | tag == 'd' = rewardWireBytes_ 16 input >>= \(bits, rest) -> Right (tag : bits, rest)
  | tag `elem` "scy" = do
      (count, afterCount) <- rewardWireCount_ input
      (bytes, rest) <- rewardWireBytes_ count afterCount
      Right (tag : shows count (':' : bytes), rest)
  | tag `elem` "ltem" = do
      (count, afterCount) <- rewardWireCount_ input
      (items, rest) <- rewardWireMany_ (if tag == 'm' then 2 * count else count) rewardWireRaw_ afterCount
      Right (tag : shows count (':' : concat items), rest)
rewardWireRaw_ input = rewardWireUnexpected_ "a value" input

rewardWirePutIntegral_ :: Integral a => a -> ShowS
rewardWirePutIntegral_ value = showChar 'i' . shows (toInteger value) . showChar ';'

-- an integer of a fixed width: refused where it does not fit
rewardWireTakeIntegral_ :: Integral a => RewardWireReader_ a
rewardWireTakeIntegral_ input = do
  (whole, rest) <- rewardWireTake_ input
  let value = fromInteger whole
  if toInteger value == whole then Right (value, rest) else Left (show whole ++ " does not fit the declared type")

instance RewardWire_ Integer where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ ('i' : input) = do
    (digits, rest) <- rewardWireUntil_ ';' input
    case reads digits of
      [(value, "")] | all (`elem` "-0123456789") digits -> Right (value, rest)
      _ -> Left ("an integer that is not one: " ++ show digits)
  rewardWireTake_ input = rewardWireUnexpected_ "an integer" input

instance RewardWire_ Int where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_
instance RewardWire_ RewardWireInt_.Int8 where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_
instance RewardWire_ RewardWireInt_.Int16 where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_
instance RewardWire_ RewardWireInt_.Int32 where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_
instance RewardWire_ RewardWireInt_.Int64 where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_
instance RewardWire_ Word where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_
instance RewardWire_ RewardWireWord_.Word8 where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_
instance RewardWire_ RewardWireWord_.Word16 where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_
instance RewardWire_ RewardWireWord_.Word32 where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_
instance RewardWire_ RewardWireWord_.Word64 where
  rewardWirePut_ = rewardWirePutIntegral_
  rewardWireTake_ = rewardWireTakeIntegral_

-- a float: its binary64 bits (NaN, the infinities and -0.0 exact)
instance RewardWire_ Double where
  rewardWirePut_ value = showChar 'd' . showString (replicate (16 - length hex) '0' ++ hex)
    where hex = RewardWireNumeric_.showHex (RewardWireFloat_.castDoubleToWord64 value) ""
  rewardWireTake_ ('d' : input) = do
    (hex, rest) <- rewardWireBytes_ 16 input
    case RewardWireNumeric_.readHex hex of
      [(bits, "")] -> Right (RewardWireFloat_.castWord64ToDouble bits, rest)
      _ -> Left ("a float's bits that are not hex: " ++ show hex)
  rewardWireTake_ input = rewardWireUnexpected_ "a float" input

-- crosses as the double it widens to, exactly (MultiPL-E's Haskell floats are Float)
instance RewardWire_ Float where
  rewardWirePut_ = rewardWirePut_ . RewardWireFloat_.float2Double
  rewardWireTake_ input = rewardWireTake_ input >>= \(value, rest) -> Right (RewardWireFloat_.double2Float value, rest)

instance RewardWire_ Bool where
  rewardWirePut_ value = showChar (if value then 'T' else 'F')
  rewardWireTake_ ('T' : input) = Right (True, input)
  rewardWireTake_ ('F' : input) = Right (False, input)
  rewardWireTake_ input = rewardWireUnexpected_ "a Bool" input

instance RewardWire_ () where
  rewardWirePut_ () = showChar 'N'
  rewardWireTake_ ('N' : input) = Right ((), input)
  rewardWireTake_ input = rewardWireUnexpected_ "()" input

-- UTF-8 of every code point a Char holds (a lone surrogate too: Haskell's strings may hold one)
rewardWireUtf8_ :: Char -> String
rewardWireUtf8_ char
  | point < 0x80 = [char]
  | point < 0x800 = bytes 0xC0 1
  | point < 0x10000 = bytes 0xE0 2
  | otherwise = bytes 0xF0 3
  where
    point = fromEnum char
    bytes lead count = toEnum (lead + point `div` 64 ^ count)
      : [toEnum (0x80 + point `div` 64 ^ at `mod` 64) | at <- [count - 1, count - 2 .. 0]]

rewardWireFromUtf8_ :: String -> Either String String
rewardWireFromUtf8_ [] = Right []
rewardWireFromUtf8_ (lead : rest)
  | byte < 0x80 = (lead :) <$> rewardWireFromUtf8_ rest
  | byte >= 0xC2 && byte < 0xE0 = continued 1 (byte - 0xC0) 0x80
  | byte >= 0xE0 && byte < 0xF0 = continued 2 (byte - 0xE0) 0x800
  | byte >= 0xF0 && byte < 0xF5 = continued 3 (byte - 0xF0) 0x10000
  | otherwise = Left "a string that is not UTF-8"
  where
    byte = fromEnum lead
    continued count high least = case splitAt count rest of
      (more, after) | length more == count && all (\c -> fromEnum c >= 0x80 && fromEnum c < 0xC0) more
                      && point >= least && point <= 0x10FFFF -> (toEnum point :) <$> rewardWireFromUtf8_ after
        where point = foldl (\sofar c -> sofar * 64 + fromEnum c - 0x80) high more
      _ -> Left "a string that is not UTF-8"

rewardWireTakeText_ :: Char -> RewardWireReader_ String
rewardWireTakeText_ tag = rewardWireCounted_ tag (\count input -> do
  (bytes, rest) <- rewardWireBytes_ count input
  text <- rewardWireFromUtf8_ bytes
  Right (text, rest))

instance RewardWire_ Char where
  rewardWirePut_ char = showChar 'c' . shows (length bytes) . showChar ':' . showString bytes
    where bytes = rewardWireUtf8_ char
  rewardWireTake_ input = rewardWireTakeText_ 'c' input >>= \(text, rest) -> case text of
    [char] -> Right (char, rest)
    _ -> Left "a character that is not one code point"
  rewardWirePutList_ text = showChar 's' . shows (length bytes) . showChar ':' . showString bytes
    where bytes = concatMap rewardWireUtf8_ text
  rewardWireTakeList_ = rewardWireTakeText_ 's'

instance RewardWire_ a => RewardWire_ [a] where
  rewardWirePut_ = rewardWirePutList_
  rewardWireTake_ = rewardWireTakeList_

-- Nothing is null; Just a value is the value (a Maybe of a Maybe cannot tell Just Nothing from Nothing)
instance RewardWire_ a => RewardWire_ (Maybe a) where
  rewardWirePut_ = maybe (showChar 'N') rewardWirePut_
  rewardWireTake_ ('N' : input) = Right (Nothing, input)
  rewardWireTake_ input = rewardWireTake_ input >>= \(value, rest) -> Right (Just value, rest)

instance (Ord k, RewardWire_ k, RewardWire_ v) => RewardWire_ (RewardWireMap_.Map k v) where
  rewardWirePut_ entries = rewardWireItems_ 'm' (RewardWireMap_.size entries)
    [rewardWirePut_ key . rewardWirePut_ value | (key, value) <- RewardWireMap_.toAscList entries]
  rewardWireTake_ = rewardWireCounted_ 'm' (\count input -> do
    (entries, rest) <- rewardWireMany_ count (\at -> do
      (key, afterKey) <- rewardWireTake_ at
      (value, after) <- rewardWireTake_ afterKey
      Right ((key, value), after)) input
    Right (RewardWireMap_.fromList entries, rest))

instance (Ord a, RewardWire_ a) => RewardWire_ (RewardWireSet_.Set a) where
  rewardWirePut_ items = rewardWireItems_ 'e' (RewardWireSet_.size items) (map rewardWirePut_ (RewardWireSet_.toAscList items))
  rewardWireTake_ = rewardWireCounted_ 'e' (\count input -> do
    (items, rest) <- rewardWireMany_ count rewardWireTake_ input
    Right (RewardWireSet_.fromList items, rest))

-- a tuple's items, each read by its own type
rewardWireTuple_ :: Int -> (String -> Either String (b, String)) -> RewardWireReader_ b
rewardWireTuple_ size items = rewardWireCounted_ 't' (\count input ->
  if count == size then items input else Left ("a tuple of " ++ show count ++ " where the type wants " ++ show size))

instance (RewardWire_ a, RewardWire_ b) => RewardWire_ (a, b) where
  rewardWirePut_ (a, b) = rewardWireItems_ 't' 2 [rewardWirePut_ a, rewardWirePut_ b]
  rewardWireTake_ = rewardWireTuple_ 2 (\i0 -> do
    (a, i1) <- rewardWireTake_ i0
    (b, i2) <- rewardWireTake_ i1
    Right ((a, b), i2))

instance (RewardWire_ a, RewardWire_ b, RewardWire_ c) => RewardWire_ (a, b, c) where
  rewardWirePut_ (a, b, c) = rewardWireItems_ 't' 3 [rewardWirePut_ a, rewardWirePut_ b, rewardWirePut_ c]
  rewardWireTake_ = rewardWireTuple_ 3 (\i0 -> do
    (a, i1) <- rewardWireTake_ i0
    (b, i2) <- rewardWireTake_ i1
    (c, i3) <- rewardWireTake_ i2
    Right ((a, b, c), i3))

instance (RewardWire_ a, RewardWire_ b, RewardWire_ c, RewardWire_ d) => RewardWire_ (a, b, c, d) where
  rewardWirePut_ (a, b, c, d) =
    rewardWireItems_ 't' 4 [rewardWirePut_ a, rewardWirePut_ b, rewardWirePut_ c, rewardWirePut_ d]
  rewardWireTake_ = rewardWireTuple_ 4 (\i0 -> do
    (a, i1) <- rewardWireTake_ i0
    (b, i2) <- rewardWireTake_ i1
    (c, i3) <- rewardWireTake_ i2
    (d, i4) <- rewardWireTake_ i3
    Right ((a, b, c, d), i4))

instance (RewardWire_ a, RewardWire_ b, RewardWire_ c, RewardWire_ d, RewardWire_ e) => RewardWire_ (a, b, c, d, e) where
  rewardWirePut_ (a, b, c, d, e) =
    rewardWireItems_ 't' 5 [rewardWirePut_ a, rewardWirePut_ b, rewardWirePut_ c, rewardWirePut_ d, rewardWirePut_ e]
  rewardWireTake_ = rewardWireTuple_ 5 (\i0 -> do
    (a, i1) <- rewardWireTake_ i0
    (b, i2) <- rewardWireTake_ i1
    (c, i3) <- rewardWireTake_ i2
    (d, i4) <- rewardWireTake_ i3
    (e, i5) <- rewardWireTake_ i4
    Right ((a, b, c, d, e), i5))
