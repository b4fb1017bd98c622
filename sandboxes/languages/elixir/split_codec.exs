# The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.
defmodule RsWire do
  # what == and === tell apart crosses apart: integers and floats, lists and tuples; a MapSet is a set; binaries
  # that are UTF-8 are strings, others bytes. Atoms but nil, true and false, structs, improper lists, functions,
  # pids and references fail the call.
  def write(nil), do: "N"
  def write(true), do: "T"
  def write(false), do: "F"
  def write(value) when is_integer(value), do: ["i", Integer.to_string(value), ";"]
  def write(value) when is_float(value), do: ["d", Base.encode16(<<value::float-64>>, case: :lower)]

  def write(value) when is_binary(value),
    do: [if(String.valid?(value), do: "s", else: "y"), Integer.to_string(byte_size(value)), ":", value]

  def write(value) when is_tuple(value), do: counted("t", Tuple.to_list(value))
  def write(%MapSet{} = value), do: counted("e", MapSet.to_list(value))

  def write(value) when is_map(value) and not is_map_key(value, :__struct__),
    do: ["m", Integer.to_string(map_size(value)), ":", Enum.map(value, fn {key, item} -> [write(key), write(item)] end)]

  def write(value) when is_list(value) do
    count = try do: length(value), rescue: (ArgumentError -> refuse(value))
    ["l", Integer.to_string(count), ":", Enum.map(value, &write/1)]
  end

  def write(value), do: refuse(value)

  defp counted(tag, items), do: [tag, Integer.to_string(length(items)), ":", Enum.map(items, &write/1)]

  defp refuse(value),
    do: raise(ArgumentError, "#{inspect(value, limit: 5)} is not a value that crosses to the tests")

  # One value read by `take` (count -> that many bytes): Elixir's own data only (lists a list, tuples a tuple)
  def read(take) do
    case take.(1) do
      "N" -> nil
      "T" -> true
      "F" -> false
      "i" -> number(take, ";")
      "d" -> float(take.(16))
      tag when tag in ["s", "c", "y", "l", "t", "e", "m"] -> counted(tag, number(take, ":"), take)
      other -> malformed("#{inspect(other)} is no value")
    end
  end

  defp counted(tag, count, take) when tag in ["s", "c", "y"], do: take.(count)
  defp counted("l", count, take), do: items(count, take)
  defp counted("t", count, take), do: List.to_tuple(items(count, take))
  defp counted("e", count, take), do: MapSet.new(items(count, take))
  defp counted("m", count, take), do: Map.new(items(2 * count, take) |> Enum.chunk_every(2), &List.to_tuple/1)

  defp items(count, take), do: for(_ <- 1..count//1, do: read(take))

  defp float(hex) do
    case Base.decode16(hex, case: :mixed) do
      {:ok, <<value::float-64>>} -> value
      _ -> malformed("a float that is not 16 hex digits, or not one Elixir has (NaN, infinity)")
    end
  end

  # the decimal integer before `ending`
  def number(take, ending, digits \\ [], size \\ 0) do
    case take.(1) do
      ^ending ->
        text = IO.iodata_to_binary(Enum.reverse(digits))
        if text =~ ~r/\A-?[0-9]+\z/, do: String.to_integer(text), else: malformed("a number that is not decimal")

      byte when size < 100_000 ->
        number(take, ending, [byte | digits], size + 1)

      _ ->
        malformed("a number without its end")
    end
  end

  def malformed(what), do: raise("the wire format: " <> what)
end
