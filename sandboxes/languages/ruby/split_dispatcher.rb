# before the program's first line: it reads an empty stdin, and what it prints goes to stderr, never among the replies
BEGIN {
  RS_CALLS = $stdin.dup.binmode
  RS_REPLIES = $stdout.dup.binmode
  $stdin.reopen(File::NULL)
  $stdout.reopen($stderr)
}

@@codec@@
module RsServe
  # the calls of `function` answered, one reply each after the ready word
  def self.serve(function, calls, replies)
    replies.write(RsWire::READY)
    replies.flush
    while calls.read(1) == 'C'
      args = Array.new(RsWire.number(calls, ':')) { RsWire.read(calls) }
      replies.write(answer(function, args))
      replies.flush
    end
  end

  def self.answer(function, args)
    out = 'R'.b
    RsWire.write(function.call(*args), out)
    RsWire.write(args, out)
    out
  rescue Exception => e # rubocop:disable Lint/RescueException -- the tests see whatever the function raised
    known = e.class.ancestors.grep(Class).find { |kind| kind.name && Object.const_source_location(kind.name) == [] }
    out = 'X'.b
    RsWire.write(known.name, out)
    RsWire.write(e.message, out)
    out
  end
end

RsServe.serve(method(:@@entry@@), RS_CALLS, RS_REPLIES)
