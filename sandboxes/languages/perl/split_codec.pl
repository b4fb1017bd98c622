# The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.
# A scalar crosses as what it holds: undef N, a boolean T or F, a string s (its characters in UTF-8), else an
# integer i or a float d; array and hash references as l and m. A Perl value read back is built of those alone.
package RsWire {
    BEGIN { ${^WARNING_BITS} = "\0" x 64 }   # builtin::is_bool is experimental in 5.36
    use B ();

    # `$value`'s encoding appended to the string `$$out`
    sub encode {
        my ($value, $out) = @_;
        my $type = ref $value;
        if ($type eq 'ARRAY') {
            $$out .= 'l' . @$value . ':';
            RsWire::encode($_, $out) for @$value;
        } elsif ($type eq 'HASH') {
            $$out .= 'm' . keys(%$value) . ':';
            for my $key (sort keys %$value) {
                RsWire::encode($key, $out);
                RsWire::encode($value->{$key}, $out);
            }
        } elsif ($type ne '') {
            die "a $type reference is not a value that crosses to the tests\n";
        } elsif (!defined $value) {
            $$out .= 'N';
        } elsif (builtin::is_bool($value)) {
            $$out .= $value ? 'T' : 'F';
        } else {
            my $flags = B::svref_2object(\$value)->FLAGS;
            if ($flags & B::SVf_POK) {
                utf8::encode(my $bytes = $value);
                $$out .= 's' . length($bytes) . ':' . $bytes;
            } elsif ($flags & B::SVf_IOK) {
                $$out .= "i$value;";
            } elsif ($flags & B::SVf_NOK) {
                $$out .= 'd' . unpack('H*', pack('d>', $value));
            } else {
                die "a scalar that is no number and no string does not cross to the tests\n";
            }
        }
    }

    sub exactly {
        my ($in, $count) = @_;
        my $got = CORE::read($in, my $data, $count);
        die "the other side ended in the middle of a value\n" unless defined $got and $got == $count;
        return $data;
    }

    sub number {
        my ($in, $end) = @_;
        my $digits = '';
        while ((my $char = exactly($in, 1)) ne $end) {
            die "a number without its end in the wire format\n" if length($digits) > 100000;
            $digits .= $char;
        }
        die "'$digits' is no number of the wire format\n" unless $digits =~ /\A-?[0-9]+\z/;
        return $digits;
    }

    # one value read from the handle `$in`: Perl's own scalars, array and hash references
    sub decode {
        my ($in) = @_;
        my $tag = exactly($in, 1);
        return undef if $tag eq 'N' or $tag eq 'U';
        return !!1 if $tag eq 'T';
        return !!0 if $tag eq 'F';
        return 0 + number($in, ';') if $tag eq 'i';
        if ($tag eq 'd') {
            my $hex = exactly($in, 16);
            die "'$hex' is no float of the wire format\n" unless $hex =~ /\A[0-9a-f]{16}\z/;
            return unpack('d>', pack('H*', $hex));
        }
        die "'$tag' is no tag of the wire format\n" unless $tag =~ /\A[scylmte]\z/;
        my $count = number($in, ':');
        if ($tag eq 's' or $tag eq 'c') {
            my $text = exactly($in, $count);
            utf8::decode($text) or die "a string that is not UTF-8\n";
            return $text;
        }
        return exactly($in, $count) if $tag eq 'y';
        if ($tag eq 'm') {
            my %pairs;
            for (1 .. $count) {
                my $key = RsWire::decode($in);
                die "a map key that is not a string\n" if ref $key or !defined $key;
                $pairs{$key} = RsWire::decode($in);
            }
            return \%pairs;
        }
        return [map { RsWire::decode($in) } 1 .. $count];
    }
}
