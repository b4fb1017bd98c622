case ExUnit.run() do
  %{failures: 0} -> IO.puts(:stderr, "{marker}")
  _ -> System.halt(1)
end
