# The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.
require 'set'

module RsWire
  # the dispatcher's first reply bytes: what the program printed before its BEGIN took stdout (in a BEGIN block of its
  # own) is skipped by the stub
  READY = "\0split: ready\n".b

  # `value`'s encoding appended to the binary String `out`
  def self.write(value, out)
    case value
    when nil then out << 'N'
    when true then out << 'T'
    when false then out << 'F'
    when Integer then out << "i#{value};"
    when Float then out << 'd' << [value].pack('G').unpack1('H*')
    when String
      binary = value.encoding == Encoding::BINARY
      data = (binary ? value : value.encode(Encoding::UTF_8)).b
      out << (binary ? 'y' : 's') << "#{data.bytesize}:" << data
    when Array, Set
      out << (value.is_a?(Array) ? 'l' : 'e') << "#{value.size}:"
      value.each { |item| write(item, out) }
    when Hash
      out << "m#{value.size}:"
      value.each do |key, item|
        write(key, out)
        write(item, out)
      end
    else
      raise TypeError, "a #{value.class} is not a value that crosses to the tests"
    end
  end

  def self.exactly(io, count)
    data = io.read(count)
    raise EOFError, 'the other side ended in the middle of a value' unless data && data.bytesize == count

    data
  end

  def self.number(io, ending)
    digits = +''
    until (char = io.getc) == ending
      raise ArgumentError, 'a number without its end in the wire format' if char.nil? || digits.size > 100_000

      digits << char
    end
    Integer(digits, 10)
  end

  # One value read from the binary stream `io`: core types only
  def self.read(io)
    tag = exactly(io, 1)
    return nil if %w[N U].include?(tag)
    return tag == 'T' if %w[T F].include?(tag)
    return number(io, ';') if tag == 'i'

    if tag == 'd'
      bits = exactly(io, 16)
      raise ArgumentError, 'a float that is not 16 hex digits' unless bits.match?(/\A\h{16}\z/)

      return [bits].pack('H*').unpack1('G')
    end
    count = number(io, ':')
    case tag
    when 's', 'c' then exactly(io, count).force_encoding(Encoding::UTF_8)
    when 'y' then exactly(io, count)
    when 'l', 't' then Array.new(count) { read(io) }
    when 'e' then Set.new(Array.new(count) { read(io) })
    when 'm' then Array.new(count) { [read(io), read(io)] }.to_h
    else raise ArgumentError, "#{tag.inspect} is no tag of the wire format"
    end
  end
end
