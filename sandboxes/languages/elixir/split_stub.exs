@@codec@@
defmodule RsSplit do
  # The entry function's calls sent to the program (fd 3), its replies read back (fd 4), by one process that holds
  # both (a raw file serves the process that opened it, and each test runs in one of its own); Elixir's values are
  # immutable, so no argument changes in the call
  def call(args) do
    out =
      try do
        ["C", Integer.to_string(length(args)), ":", Enum.map(args, &RsWire.write/1)]
      rescue
        e in ArgumentError ->   # the benchmark's argument, not the program's doing
          IO.puts(:stderr, "@@unsupported@@" <> Exception.message(e))
          System.halt(1)
      end

    send(:persistent_term.get(RsSplit), {self(), out})

    receive do
      {RsSplit, {:ok, result}} -> result
      {RsSplit, {:raise, exception}} -> raise exception
    end
  end

  def start do
    {:ok, calls} = :file.open("/dev/fd/3", [:write, :raw, :binary])
    {:ok, replies} = :file.open("/dev/fd/4", [:read, :raw, :binary])
    exchange(calls, fn count -> exactly(replies, count, []) end)
  end

  defp exchange(calls, take) do
    receive do
      {from, out} ->
        answer =
          try do
            if :file.write(calls, out) != :ok, do: ended()
            {:ok, reply(take)}
          rescue
            e -> {:raise, e}
          end

        send(from, {RsSplit, answer})
        exchange(calls, take)
    end
  end

  # a reply follows a NUL: before it, what the program wrote to its stdout past its group leader
  defp reply(take) do
    case take.(1) do
      "\0" -> answer(take.(1), take)
      _ -> reply(take)
    end
  end

  defp answer("R", take) do
    result = RsWire.read(take)
    RsWire.read(take)
    result
  end

  defp answer("X", take) do
    name = RsWire.read(take)
    message = RsWire.read(take)
    if is_binary(name) and is_binary(message), do: raise(exception(name, message)), else: not_a_value()
  end

  defp answer(_, _), do: not_a_value()

  # the exception of that name that this process has (Elixir's own: nothing of the program is here), else a
  # RuntimeError
  defp exception(name, message) do
    kind =
      try do
        String.to_existing_atom("Elixir." <> name)
      rescue
        ArgumentError -> nil
      end

    cond do
      not (is_atom(kind) and Code.ensure_loaded?(kind) and function_exported?(kind, :exception, 1) and
               function_exported?(kind, :message, 1)) ->
        RuntimeError.exception(name <> ": " <> message)

      Map.has_key?(struct(kind), :message) ->
        struct(kind, message: message)

      true ->
        struct(kind)
    end
  end

  defp exactly(device, count, got) do
    if IO.iodata_length(got) == count do
      IO.iodata_to_binary(got)
    else
      case :file.read(device, count - IO.iodata_length(got)) do
        {:ok, data} -> exactly(device, count, [got, data])
        _ -> ended()
      end
    end
  end

  defp ended, do: raise("the program ended during a call")
  defp not_a_value, do: raise("the program's reply is not a value")
end

:persistent_term.put(RsSplit, spawn(&RsSplit.start/0))

defmodule @@module@@ do
@@helpers@@  def @@entry@@(@@arguments@@), do: RsSplit.call([@@arguments@@])
end
