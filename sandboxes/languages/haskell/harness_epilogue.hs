main = rewardTestsMain_ >> rewardTestsDone_ "{marker}\n"

rewardTestsDone_ :: String -> IO ()
rewardTestsDone_ text = do
  buffer <- rewardTestsMalloc_ (length text)
  mapM_ (\(at, char) -> rewardTestsMemset_ (buffer + at) (fromEnum char) 1) (zip [0 ..] text)
  _ <- rewardTestsWrite_ 2 buffer (length text)
  pure ()

foreign import ccall unsafe "malloc" rewardTestsMalloc_ :: Int -> IO Int
foreign import ccall unsafe "memset" rewardTestsMemset_ :: Int -> Int -> Int -> IO Int
foreign import ccall unsafe "write" rewardTestsWrite_ :: Int -> Int -> Int -> IO Int
