@@codec@@
# The entry function's calls sent to the program (fd 3), its replies read back (fd 4).
package RsStub {
    open(my $calls, '>&=', 3) or die "the calls' descriptor: $!";
    open(my $replies, '<&=', 4) or die "the replies' descriptor: $!";
    binmode $calls;
    binmode $replies;

    # the function's result: the list it returned in list context (in scalar context its last element, as a list
    # in a `return` gives); array and hash arguments take what the function made of them
    sub call {
        my $out = 'C' . @_ . ':';
        unless (eval { RsWire::encode($_, \$out) for @_; 1 }) {   # the benchmark's argument, not the program's doing
            print STDERR "\@\@unsupported\@\@$@";
            CORE::exit(1);
        }
        local $SIG{PIPE} = 'IGNORE';
        local $/ = "\0";   # a reply follows a NUL: before it, what the program wrote to its stdout unbuffered
        my $tag = (syswrite($calls, $out) // -1) == length($out) && defined readline($replies)
            ? RsWire::exactly($replies, 1) : '';
        if ($tag eq 'R') {
            my ($result, $after) = (RsWire::decode($replies), RsWire::decode($replies));
            die "the program's result is not the list it returned\n" unless ref $result eq 'ARRAY';
            for my $i (0 .. $#_) {
                my ($arg, $changed) = ($_[$i], ref $after eq 'ARRAY' ? $after->[$i] : undef);
                @$arg = @$changed if ref $arg eq 'ARRAY' and ref $changed eq 'ARRAY';
                %$arg = %$changed if ref $arg eq 'HASH' and ref $changed eq 'HASH';
            }
            return wantarray ? @$result : $result->[-1];
        }
        if ($tag eq 'X') {
            my ($name, $message) = (RsWire::decode($replies), RsWire::decode($replies));
            die $message;
        }
        $! = 0;   # die's status is 255, not the errno of a write to a program that ended
        die($tag eq '' ? "the program ended during a call\n" : "the program's reply is not a value\n");
    }
}

sub @@entry@@ { return RsStub::call(@_) }
