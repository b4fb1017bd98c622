@@codec@@
defmodule RsServe do
  # The entry function's calls read from stdin, one reply each on stdout after a NUL (the stub skips what precedes it:
  # what the program wrote past its group leader, :erlang.display say), through the `user` io server as bytes;
  # Elixir's values are immutable, so the arguments go back as none
  def serve(entry) do
    take = fn
      0 ->
        ""

      count ->
        case IO.binread(:user, count) do
          data when is_binary(data) and byte_size(data) == count -> data
          _ -> RsWire.malformed("the tests ended in a value")
        end
    end

    if IO.binread(:user, 1) == "C" do
      args = for _ <- 1..RsWire.number(take, ":")//1, do: RsWire.read(take)
      IO.binwrite(:user, ["\0" | answer(entry, args)])
      serve(entry)
    end
  end

  defp answer(entry, args) do
    ["R", RsWire.write(entry.(args)), "l0:"]
  catch
    kind, reason ->   # the tests see whatever the function raised, threw or exited with
      {name, message} =
        case Exception.normalize(kind, reason, __STACKTRACE__) do
          %{__exception__: true, __struct__: module} = e -> {inspect(module), Exception.message(e)}
          _ -> {"RuntimeError", Exception.format_banner(kind, reason, __STACKTRACE__)}
        end

      ["X", RsWire.write(name), RsWire.write(message)]
  end
end

# before the program's first line: what it prints goes to stderr, never among the replies, and it reads no call
:ok = :io.setopts(:user, encoding: :latin1)
Process.group_leader(self(), Process.whereis(:standard_error))

