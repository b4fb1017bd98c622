# The trusted loader that runs a function-style Ruby program and then its tests (docs/guards.md).
#
# This file is the run's source file, so a program that reads its own source ($0, __FILE__) finds neither the tests
# nor the end-of-tests marker: both arrive on stdin (graders/guarded.prepare: a line "marker, prompt length,
# completion length", then prompt, completion and tests), read to the end before the program runs. Before the program
# runs, too: the libraries the tests require are loaded (test/unit's autorunner turned off) and frozen with the
# classes the tests' tools are made of, and every core method this file calls afterwards is taken as an
# UnboundMethod (called with bind_call, so that what the program redefines, prepends or includes changes none of
# them). The tests' assert_equal is this file's: it compares plain data only (Integer, Float, String, Symbol, nil,
# true, false, Arrays and Hashes of them) with those methods, so an object whose == says yes to anything is unequal,
# and a failure ends the process at once (exit! 1) without calling any of the program's code. The runtime's
# introspection that would lead from the program to the tests (ObjectSpace's heap walks, TracePoint and
# set_trace_func, the compiled code's disassembly) is removed and its modules frozen before the program's first line.
# The program runs at the top level as program.rb (no such file); the tests then run at the top level too, on a self
# of their own whose `require` answers from what was loaded; each test case they define is frozen, its test methods
# taken out of it (the program cannot call them with an assert_equal of its own) and called by this file, and the
# marker goes to stderr only when every one returned. Standard library only: this runs under the sandbox's ruby.

module RubyGuard
  FILENAME = 'program.rb' # what backtraces call the program and its tests: no file
  TESTS_REQUIRE = /^\s*require\s*\(?\s*['"]([^'"]+)['"]/
  PLAIN = [Integer, Float, String, Symbol, NilClass, TrueClass, FalseClass, Array, Hash].freeze
  NUMBERS = [Integer, Float].freeze
  # the core methods used once the program ran, as they are now
  INSPECTS = PLAIN.map { |kind| [kind, kind.instance_method(:inspect)] }.freeze
  CLASS_OF = Kernel.instance_method(:class)
  SAME_OBJECT = BasicObject.instance_method(:equal?)
  FREEZE = Kernel.instance_method(:freeze)
  SINGLETON = Kernel.instance_method(:singleton_class)
  CALLER = Kernel.instance_method(:caller)
  EVAL = Kernel.instance_method(:eval)
  EXIT = Process.method(:exit!)
  INTEGER_EQUAL = Integer.instance_method(:==)
  FLOAT_EQUAL = Float.instance_method(:==)
  STRING_EQUAL = String.instance_method(:==)
  CONCAT = String.instance_method(:+)
  SIZE = Array.instance_method(:size)
  AT = Array.instance_method(:[])
  EACH = Array.instance_method(:each)
  EACH_INDEX = Array.instance_method(:each_index)
  PUSH = Array.instance_method(:push)
  JOINED = Array.instance_method(:+)
  DROP = Array.instance_method(:drop)
  PAIRS = Hash.instance_method(:to_a)
  NAME = Module.instance_method(:name)
  ANCESTORS = Module.instance_method(:ancestors)
  PUBLIC_METHODS = Module.instance_method(:public_instance_methods)
  INSTANCE_METHOD = Module.instance_method(:instance_method)
  REMOVE_METHOD = Module.instance_method(:remove_method)
  ALLOCATE = Class.instance_method(:allocate)
  STARTS_WITH = Symbol.instance_method(:start_with?)
  SYSWRITE = IO.instance_method(:syswrite)
  THREADS = Thread.method(:list)
  KILL = Thread.instance_method(:kill)
  JOIN = Thread.instance_method(:join)
  MAIN_THREAD = Thread.main
  # what the program could walk or hook to reach the tests' frames, code or values: removed, its modules frozen
  REMOVED = {
    ObjectSpace.singleton_class => %i[each_object _id2ref reachable_objects_from reachable_objects_from_root dump
                                      dump_all trace_object_allocations trace_object_allocations_start
                                      allocation_sourcefile allocation_sourceline allocation_class_path
                                      allocation_method_id allocation_generation internal_class_of internal_super_of],
    TracePoint.singleton_class => %i[new trace stat allow_reentry], TracePoint => %i[enable],
    Kernel => %i[set_trace_func], Kernel.singleton_class => %i[set_trace_func],
    Thread => %i[set_trace_func add_trace_func],
    # no instruction sequence of the tests' methods (one of the program's own code is fine: Forwardable reads one),
    # and no script lines kept for a syntax tree of them (code eval'd without has none)
    RubyVM::InstructionSequence.singleton_class => %i[of disasm disassemble],
    RubyVM.singleton_class => %i[keep_script_lines=],
    Module => %i[refine] # a refined method's UnboundMethod follows what the program prepends
  }.freeze
  FROZEN = [ObjectSpace, TracePoint, RubyVM, RubyVM::InstructionSequence, Method, UnboundMethod, Proc].freeze

  # (marker, program, tests) from what graders/guarded.prepare wrote: lengths in UTF-8 bytes
  def self.read_request
    $stdin.binmode
    marker, prompt_length, completion_length = $stdin.gets.split
    program = $stdin.read(Integer(prompt_length) + Integer(completion_length)).to_s
    [marker, program.force_encoding(Encoding::UTF_8), $stdin.read.to_s.force_encoding(Encoding::UTF_8)]
  end

  # Every feature the tests require, loaded now; test/unit's at-exit runner off (this file runs the tests)
  def self.load_libraries(tests)
    features = tests.scan(TESTS_REQUIRE).flatten.freeze
    begin # test/unit loads power_assert, whose refinements of the core operators would leave the methods taken above
      require 'power_assert/configuration' # following a module the program prepends
      PowerAssert.configure { |configuration| configuration._redefinition = false }
    rescue LoadError
      nil
    end
    features.each do |feature|
      require feature
    rescue LoadError
      nil # the tests' own error, when they require it
    end
    Test::Unit::AutoRunner.need_auto_run = false if defined?(Test::Unit::AutoRunner)
    features
  end

  def self.kind(value, kinds)
    value_class = CLASS_OF.bind_call(value)
    EACH.bind_call(kinds) { |kind| return true if SAME_OBJECT.bind_call(value_class, kind) }
    false
  end

  # expected == actual as test/unit's assert_equal has it for plain data (1 == 1.0), through the methods taken before
  # the program ran: nothing of the program's is called, and a value that is not plain data is unequal
  def self.equal(expected, actual)
    if kind(expected, NUMBERS) || kind(actual, NUMBERS)
      kind(expected, NUMBERS) && kind(actual, NUMBERS) &&
        (kind(expected, [Integer]) ? INTEGER_EQUAL : FLOAT_EQUAL).bind_call(expected, actual)
    elsif SAME_OBJECT.bind_call(CLASS_OF.bind_call(expected), CLASS_OF.bind_call(actual)) && kind(actual, PLAIN)
      if kind(actual, [String])
        STRING_EQUAL.bind_call(expected, actual)
      elsif kind(actual, [Array])
        equal_arrays(expected, actual)
      elsif kind(actual, [Hash])
        equal_pairs(PAIRS.bind_call(expected), PAIRS.bind_call(actual))
      else
        SAME_OBJECT.bind_call(expected, actual) # Symbol, nil, true, false
      end
    else
      false
    end
  end

  # element by element, `equal` or the same objects
  def self.equal_arrays(expected, actual, same_objects: false)
    return false unless INTEGER_EQUAL.bind_call(SIZE.bind_call(expected), SIZE.bind_call(actual))

    EACH_INDEX.bind_call(expected) do |i|
      one, other = AT.bind_call(expected, i), AT.bind_call(actual, i)
      return false unless same_objects ? SAME_OBJECT.bind_call(one, other) : equal(one, other)
    end
    true
  end

  # Hash#== without the keys' own hash and eql?: as many pairs, every expected pair found among the actual ones
  def self.equal_pairs(expected, actual)
    return false unless INTEGER_EQUAL.bind_call(SIZE.bind_call(expected), SIZE.bind_call(actual))

    EACH.bind_call(expected) do |(key, value)|
      found = false
      EACH.bind_call(actual) { |(other_key, other)| found ||= equal(key, other_key) && equal(value, other) }
      return false unless found
    end
    true
  end

  # a value's inspect through methods taken before the program ran; a value that is not plain data by its class name
  def self.show(value)
    return show_all(value, '[', ']') if kind(value, [Array])
    return show_all(PAIRS.bind_call(value), '{', '}', pairs: true) if kind(value, [Hash])

    EACH.bind_call(INSPECTS) { |(kind, inspect)| return inspect.bind_call(value) if kind(value, [kind]) }
    CONCAT.bind_call(CONCAT.bind_call('#<', NAME.bind_call(CLASS_OF.bind_call(value)) || 'an object'), '>')
  end

  def self.show_all(items, open, close, pairs: false)
    text = nil
    EACH.bind_call(items) do |item|
      shown = pairs ? CONCAT.bind_call(CONCAT.bind_call(show(AT.bind_call(item, 0)), ' => '), show(AT.bind_call(item, 1)))
                    : show(item)
      text = text ? CONCAT.bind_call(CONCAT.bind_call(text, ', '), shown) : shown
    end
    CONCAT.bind_call(CONCAT.bind_call(open, text || ''), close)
  end

  def self.failure(where, expected, actual)
    text = CONCAT.bind_call(CONCAT.bind_call(where, ': assert_equal: expected '), show(expected))
    CONCAT.bind_call(CONCAT.bind_call(CONCAT.bind_call(text, ', got '), show(actual)), "\n")
  end

  # The tests' assertions: assert_equal as `equal` has it; a failure is written and ends the run at once
  def self.assertions(err)
    guard = self
    Module.new do
      define_method(:assert_equal) do |expected, actual, _message = nil|
        return if guard.equal(expected, actual)

        SYSWRITE.bind_call(err, guard.failure(AT.bind_call(CALLER.bind_call(self, 2, 1), 0), expected, actual))
        EXIT.call(1)
      end
      define_method(:add_assertion) { nil } # test/unit's other assertions count here; this file counts nothing
    end
  end

  # test/unit's TestCase with this file's assertions, and hooks that record the test cases the tests define (none
  # reaches further up, where the program's own hooks would be), frozen with the rest of test/unit
  def self.arm_test_unit(err, cases)
    return unless defined?(Test::Unit::TestCase)

    Test::Unit::TestCase.prepend(assertions(err).freeze)
    Test::Unit::TestCase.singleton_class.prepend(Module.new do
      define_method(:inherited) { |test_case| PUSH.bind_call(cases, test_case) }
      define_method(:method_added) { |_name| nil }
      define_method(:method_removed) { |_name| nil }
    end.freeze)
    freeze_tree(Test)
    true
  end

  def self.freeze_tree(mod)
    return if mod.frozen?

    mod.freeze
    mod.constants(false).each do |name|
      value = mod.const_get(name, false)
      freeze_tree(value) if value.is_a?(Module) && value.name&.start_with?('Test::')
    end
  end

  def self.lock_down
    require 'objspace'
    REMOVED.each do |owner, names|
      names.each do |name|
        owner.send(:remove_method, name) if owner.method_defined?(name, false) || owner.private_method_defined?(name, false)
      end
    end
    FROZEN.each(&:freeze)
  end

  # The tests' top-level self: its `require` answers from what was loaded before the program ran
  def self.arm_tests_self(tests_self, features)
    tests_self.define_singleton_method(:require) do |feature|
      EACH.bind_call(features) { |loaded| return false if STRING_EQUAL.bind_call(loaded, feature) }
      raise LoadError, "cannot load such file -- #{feature}"
    end
    tests_self.singleton_class.freeze
  end

  # The program's threads end before the tests start: none runs beside them
  def self.end_threads
    while true # rubocop:disable Style/InfiniteLoop: Kernel#loop is the program's to redefine
      others = false
      EACH.bind_call(THREADS.call) do |thread|
        next if SAME_OBJECT.bind_call(thread, MAIN_THREAD)

        others = true
        JOIN.bind_call(KILL.bind_call(thread))
      end
      return unless others
    end
  end

  # The tests' test methods (in order), taken out of their test cases, which are frozen; nil when a test case's
  # ancestors are not the ones its class statement gave it (the program changed it on the way)
  def self.take_tests(cases, test_case_class)
    tests = []
    EACH.bind_call(cases) do |test_case|
      EACH.bind_call(PUBLIC_METHODS.bind_call(test_case, false)) do |name|
        next unless STARTS_WITH.bind_call(name, 'test')

        PUSH.bind_call(tests, [test_case, INSTANCE_METHOD.bind_call(test_case, name)])
        REMOVE_METHOD.bind_call(test_case, name)
      end
      FREEZE.bind_call(test_case)
      written = JOINED.bind_call([test_case], ANCESTORS.bind_call(test_case_class))
      return nil unless equal_arrays(ANCESTORS.bind_call(test_case), written, same_objects: true)
    end
    tests
  end

  def self.main(scope)
    marker, program, tests = read_request
    tests_line = program.count("\n") + 2
    err = $stderr.dup
    proof = "#{marker}\n"
    features = load_libraries(tests)
    cases = []
    needs_cases = features.include?('test/unit')
    test_case_class = arm_test_unit(err, cases) && Test::Unit::TestCase
    tests_self = scope.receiver
    arm_tests_self(tests_self, features)
    lock_down
    EVAL.bind_call(TOPLEVEL_BINDING.receiver, program, TOPLEVEL_BINDING, FILENAME, 1)
    end_threads
    before = SIZE.bind_call(cases)
    EVAL.bind_call(tests_self, tests, scope, FILENAME, tests_line)
    taken = test_case_class ? take_tests(DROP.bind_call(cases, before), test_case_class) : []
    if taken ? needs_cases && INTEGER_EQUAL.bind_call(SIZE.bind_call(taken), 0) : true
      SYSWRITE.bind_call(err, "program.rb: the tests' test cases did not run as they were written\n")
      EXIT.call(1)
    end
    EACH.bind_call(taken) do |(test_case, test)|
      test_object = ALLOCATE.bind_call(test_case)
      FREEZE.bind_call(SINGLETON.bind_call(test_object))
      test.bind_call(test_object)
    end
    SYSWRITE.bind_call(err, proof)
  end
end

# the tests' binding: a self of their own at the top level (their classes are the top level's), made where no local is
Object.send(:remove_const, :RubyGuard).freeze.main(Object.new.instance_eval { binding })
