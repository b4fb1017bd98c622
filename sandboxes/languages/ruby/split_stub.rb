@@codec@@
module RsSplit
  CALLS = IO.new(3, 'wb')
  REPLIES = IO.new(4, 'rb')
  COPIED_BACK = [Array, Hash, String, Set].freeze # passed by reference: what the function did to them is the caller's

  def self.call(args)
    out = "C#{args.size}:".b
    begin
      args.each { |arg| RsWire.write(arg, out) }
    rescue TypeError => e # the benchmark's argument, not the program's doing
      $stderr.write("@@unsupported@@#{e.message}\n")
      $stderr.flush
      exit!(1)
    end
    reply(out, args)
  end

  # the replies past the dispatcher's READY, once
  def self.ready
    return if @ready

    matched = 0
    while matched < RsWire::READY.size
      byte = REPLIES.read(1) or return # the program ended: the call reads no reply
      matched = byte == RsWire::READY[matched] ? matched + 1 : (byte == "\0" ? 1 : 0)
    end
    @ready = true
  end

  def self.reply(out, args)
    tag = begin
      CALLS.write(out)
      CALLS.flush
      ready
      REPLIES.read(1)
    rescue Errno::EPIPE
      nil
    end
    case tag
    when 'R'
      result, after = RsWire.read(REPLIES), RsWire.read(REPLIES)
      args.zip(after.is_a?(Array) ? after : []).each do |arg, changed|
        arg.replace(changed) if COPIED_BACK.include?(arg.class) && changed.instance_of?(arg.class) && !arg.frozen?
      end
      result
    when 'X'
      name, message = RsWire.read(REPLIES), RsWire.read(REPLIES)
      raise kind(name), message.to_s
    else
      raise(tag.nil? ? 'the program ended during a call' : "the program's reply is not a value")
    end
  end

  # the core exception class of that name (one defined in C), else RuntimeError
  def self.kind(name)
    return RuntimeError unless name.is_a?(String) && name.match?(/\A[A-Z]\w*\z/) && Object.const_defined?(name)

    kind = Object.const_get(name)
    kind.is_a?(Class) && kind < StandardError && Object.const_source_location(name) == [] ? kind : RuntimeError
  end
end

def @@entry@@(*args) = RsSplit.call(args)
