# The trusted loader that runs a function-style Perl program and then its tests (docs/guards.md).
#
# This file is the run's source file, so a program that reads its own source ($0, __FILE__) finds neither the tests
# nor the end-of-tests marker: both arrive on stdin (graders/guarded.prepare: a line "marker, prompt length,
# completion length", then prompt, completion and tests), read to the end before the program runs. Before the program
# runs, too, the tests are compiled: their `use` (Test::Deep) imports into a package of their own, and their builtins
# (exit, die) are bound before any CORE::GLOBAL override of the program's exists. That package is then taken out of
# the symbol table, so nothing the program names reaches it (its subs, the tests' eq_deeply, the tests' own subs
# that `caller` names); the tests' eq_deeply is this file's, which compares plain data (defined or undefined
# scalars, unblessed and untied arrays and hashes of them) as Test::Deep does, with builtins only, no signal handler
# of the program's in place, and takes anything else (a blessed object with overloaded operators, a tied value) as
# unequal; other expectations (Test::Deep's special comparisons) go to Test::Deep itself, its subs as they were
# before the program ran. The program runs in package main as program.pl (no such file); once it ran, the subs the
# tests name and their package lacks are bound to the program's, and the tests run; the marker goes to stderr (a
# handle duplicated before the program ran) only when they return. Everything of this file's lives in the lexicals of
# a closure's clone, which no symbol-table walk (B) reaches. Standard library only: this runs under the sandbox's perl.

# Compiled before any lexical of this file: what the program and the tests evaluate sees none of them.
my sub run_program { eval qq{package main;\n#line 1 "program.pl"\n$_[0]}; return $@ }
my sub compile_tests { my $tests = eval $_[0]; return ($tests, $@) }

use strict;
# No warnings here (warnings.pm would double the cost of a run), not even the default ones: builtin::blessed, an op
# that no sub of the program's replaces, is experimental.
BEGIN { ${^WARNING_BITS} = "\0" x 64 }

my $FILENAME = 'program.pl';   # what messages call the program and its tests: no file
my $TESTS_PACKAGE = 'RewardGuardTests';

# every package under `prefix` (a stash name such as "main::"), main's own entry left out
my sub packages {
    my ($prefix) = @_;
    no strict 'refs';
    my @found;
    for my $key (keys %{$prefix}) {
        next unless $key =~ /::$/ and $key ne 'main::';
        my $name = $prefix eq 'main::' ? $key : "$prefix$key";
        push @found, $name, CORE::__SUB__->($name);
    }
    return @found;
}

# a package's subs and @ISA as they are now
my sub snapshot {
    my ($package) = @_;
    no strict 'refs';
    my %subs;
    for my $name (keys %{$package}) {
        my $glob = ${$package}{$name};
        $subs{$name} = *{$glob}{CODE} if ref \$glob eq 'GLOB' and *{$glob}{CODE};
    }
    return { subs => \%subs, isa => [@{"${package}ISA"}] };
}

my sub restore {
    my ($saved) = @_;
    no strict 'refs';
    for my $package (keys %$saved) {
        my ($subs, $isa) = @{$saved->{$package}}{qw(subs isa)};
        *{"$package$_"} = $subs->{$_} for keys %$subs;
        @{"${package}ISA"} = @$isa if @$isa;   # one Test::Deep loads later (its comparisons) sets its own
    }
}

# plain data: a scalar that is no reference, or an unblessed, untied array or hash of plain data (nothing of the
# program's runs while it is read: no tie, no overloaded operator)
my sub plain {
    my ($value) = @_;
    my $type = ref $value;
    return 1 if $type eq '';
    return 0 if defined builtin::blessed($value);
    if ($type eq 'ARRAY') {
        return 0 if tied @$value;
        for my $i (0 .. $#$value) { return 0 if tied $value->[$i] or !CORE::__SUB__->($value->[$i]) }
        return 1;
    }
    if ($type eq 'HASH') {
        return 0 if tied %$value;
        for my $key (keys %$value) { return 0 if tied $value->{$key} or !CORE::__SUB__->($value->{$key}) }
        return 1;
    }
    return 0;
}

# Test::Deep's equality on plain data: defined scalars by `eq`, arrays element by element, hashes key by key
my sub same {
    my ($got, $expected) = @_;
    my $type = ref $expected;
    return 0 if ref $got ne $type;
    return defined $got ? defined $expected && $got eq $expected : !defined $expected if $type eq '';
    if ($type eq 'ARRAY') {
        return 0 if @$got != @$expected;
        for my $i (0 .. $#$expected) { return 0 unless CORE::__SUB__->($got->[$i], $expected->[$i]) }
        return 1;
    }
    return 0 if keys %$got != keys %$expected;
    for my $key (keys %$expected) {
        return 0 unless exists $got->{$key} and CORE::__SUB__->($got->{$key}, $expected->{$key});
    }
    return 1;
}

# a plain value as the failure message shows it; anything else by its type and address (no overloading)
my sub show {
    my ($value) = @_;
    my $type = ref $value;
    return defined $value ? "'$value'" : 'undef' if $type eq '';
    return '[' . join(', ', map { CORE::__SUB__->($_) } @$value) . ']' if $type eq 'ARRAY' and plain($value);
    return '{' . join(', ', map { "$_ => " . CORE::__SUB__->($value->{$_}) } sort keys %$value) . '}'
        if $type eq 'HASH' and plain($value);
    return sprintf '%s(0x%x)', builtin::reftype($value), builtin::refaddr($value);
}

# The tests' eq_deeply: plain data compared here with no signal handler of the program's in place (a failure written
# to `err`), anything else by Test::Deep's own (its subs put back first)
my sub guarded_eq_deeply {
    my ($deep, $saved, $err) = @_;
    return sub {
        my ($got, $expected) = @_;
        my @handled = grep { ref $SIG{$_} or defined $SIG{$_} and $SIG{$_} !~ /\A(?:DEFAULT|IGNORE)?\z/ } keys %SIG;
        local @SIG{@handled} = ('DEFAULT') x @handled;
        unless (plain($expected)) {
            restore($saved);
            return $deep->(@_);
        }
        return 1 if plain($got) and same($got, $expected);
        my (undef, $file, $line) = caller;
        syswrite($err, "$file line $line: eq_deeply: got " . show($got) . ', expected ' . show($expected) . "\n");
        return 0;
    };
}

sub {
    # (marker, program, tests) from what graders/guarded.prepare wrote: lengths in UTF-8 bytes, the texts as bytes
    binmode STDIN;
    my $data = '';
    1 while sysread(STDIN, $data, 1 << 16, length $data);   # not readline: die messages would name <STDIN>
    my ($marker, $prompt_length, $completion_length) = split / /, substr($data, 0, index($data, "\n") + 1, '');
    chomp $completion_length;
    my $program = substr($data, 0, $prompt_length + $completion_length, '');
    my $tests_line = ($program =~ tr/\n//) + 2;
    open(my $err, '>&', \*STDERR) or die "stderr: $!";
    my $proof = "$marker\n";

    # the tests' modules loaded; Test::Deep's subs and its packages' @ISA as that left them, to put back later
    my @modules = $data =~ /^\s*use\s+([A-Z][\w:]*)/mg;
    my %before = map { $_ => 1 } @modules ? packages('main::') : ();
    require $_ for map { (my $file = "$_.pm") =~ s{::}{/}g; $file } @modules;
    my %saved = map { $_ => snapshot($_) } grep { !$before{$_} } @modules ? packages('main::') : ();

    # the tests, compiled now in a package of their own (the prompt's subs declared there, so that they parse as
    # they would after the program), which then leaves the symbol table
    my $declared = join '', map { "sub $_; " } $program =~ /^\s*sub\s+(\w+)/mg;
    my ($tests, $error) = compile_tests("package $TESTS_PACKAGE; $declared sub {\n#line $tests_line \"$FILENAME\"\n$data\n}");
    die $error if $error ne '';
    undef $data;
    # bound now, while the package is in the symbol table: its eq_deeply to this file's, and every name the tests
    # use that it lacks to main's glob (the program's subs, once it defines them); then the package leaves it
    {
        no strict 'refs';
        my $stash = \%{"${TESTS_PACKAGE}::"};
        for my $name (keys %$stash) {
            my $glob = "${TESTS_PACKAGE}::$name";
            next if $name =~ /::$/ or ref \$stash->{$name} ne 'GLOB';
            my $code = *{$glob}{CODE};
            if ($name eq 'eq_deeply' and $code) {
                *{$glob} = guarded_eq_deeply($code, \%saved, $err);
            } elsif (!($code and defined &$code)) {
                *{$glob} = *{"main::$name"};
            }
        }
        delete $main::{"${TESTS_PACKAGE}::"};
    }

    $error = run_program($program);
    die $error if $error ne '';
    restore(\%saved);
    $tests->();
    syswrite($err, $proof) or die "stderr: $!";
}->();
