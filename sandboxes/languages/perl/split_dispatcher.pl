@@codec@@
# The entry function's calls read from fd 0, one reply each on fd 1, after a NUL (the stub skips what precedes it:
# what the program wrote to its stdout before this moved it, unbuffered)
package RsServe {
    use POSIX ();
    # what the program prints goes to stderr, never among the replies: fd 1 becomes stderr under STDOUT, whose
    # buffer (what the program printed at its top level) is flushed there too; its stdin is empty, as in MultiPL-E
    my $replies_fd = POSIX::dup(1);
    POSIX::dup2(2, 1);
    open(my $replies, '>&=', $replies_fd) or die "the replies' descriptor: $!";
    open(my $calls, '<&', \*STDIN) or die "the calls' descriptor: $!";
    open(STDIN, '<', '/dev/null') or die "/dev/null: $!";
    binmode $calls;
    binmode $replies;
    my $function = \&main::@@entry@@;
    my $tag;
    while (CORE::read($calls, $tag, 1) and $tag eq 'C') {
        my @args = map { RsWire::decode($calls) } 1 .. RsWire::number($calls, ':');
        my $out = "\0R";
        unless (eval { RsWire::encode([$function->(@args)], \$out); RsWire::encode(\@args, \$out); 1 }) {
            $out = "\0X";
            RsWire::encode('die', \$out);
            RsWire::encode("$@", \$out);
        }
        syswrite($replies, $out) == length($out) or last;
    }
    CORE::exit(0);
}
