/// The wire format (docs/guards.md, "Values across the pipe"), both sides' writer and reader: data only, into the
/// standard library's own types.
#[allow(dead_code)]
mod rs_wire {
    use std::collections::HashMap;
    use std::hash::Hash;
    use std::io::Read;

    pub type Error = String;

    pub trait Wire: Sized {
        fn put(&self, out: &mut Vec<u8>);
        /// The value whose tag (already read) is `tag`.
        fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error>;
    }

    pub fn encoded<T: Wire>(value: &T) -> Vec<u8> {
        let mut out = Vec::new();
        value.put(&mut out);
        out
    }

    pub fn read<T: Wire>(input: &mut dyn Read) -> Result<T, Error> {
        let tag = byte(input)?;
        T::take(tag, input)
    }

    pub fn byte(input: &mut dyn Read) -> Result<u8, Error> {
        let mut one = [0u8; 1];
        input.read_exact(&mut one).map_err(|_| Error::from("the other side ended in the middle of a value"))?;
        Ok(one[0])
    }

    /// The digits up to `end`.
    pub fn number(input: &mut dyn Read, end: u8) -> Result<String, Error> {
        let mut digits = Vec::new();
        loop {
            let next = byte(input)?;
            if next == end {
                return String::from_utf8(digits).map_err(|_| Error::from("a number that is not ASCII"));
            }
            if digits.len() > 100_000 {
                return Err("a number without its end".into());
            }
            digits.push(next);
        }
    }

    pub fn count(input: &mut dyn Read) -> Result<usize, Error> {
        number(input, b':')?.parse().map_err(|_| Error::from("a count that is not one"))
    }

    fn unexpected<T>(tag: u8, wanted: &str) -> Result<T, Error> {
        Err(format!("{} where the type wants {}", char::from(tag).escape_default(), wanted))
    }

    fn bytes(input: &mut dyn Read) -> Result<Vec<u8>, Error> {
        let length = count(input)?;
        let mut data = Vec::new();
        input.take(length as u64).read_to_end(&mut data).map_err(|e| e.to_string())?;
        if data.len() != length {
            return Err("the other side ended in the middle of a value".into());
        }
        Ok(data)
    }

    /// Reads past one value of any type.
    pub fn skip(input: &mut dyn Read) -> Result<(), Error> {
        match byte(input)? {
            b'N' | b'U' | b'T' | b'F' => Ok(()),
            b'i' => number(input, b';').map(|_| ()),
            b'd' => bytes_exactly(input, 16).map(|_| ()),
            b's' | b'c' | b'y' => bytes(input).map(|_| ()),
            tag @ (b'l' | b't' | b'e' | b'm') => {
                let items = count(input)? * if tag == b'm' { 2 } else { 1 };
                (0..items).try_for_each(|_| skip(input))
            }
            tag => unexpected(tag, "a value"),
        }
    }

    fn bytes_exactly(input: &mut dyn Read, length: usize) -> Result<Vec<u8>, Error> {
        let mut data = vec![0u8; length];
        input.read_exact(&mut data).map_err(|_| Error::from("the other side ended in the middle of a value"))?;
        Ok(data)
    }

    macro_rules! integers {
        ($($t:ty),*) => {$(
            impl Wire for $t {
                fn put(&self, out: &mut Vec<u8>) {
                    out.extend(format!("i{};", self).into_bytes());
                }
                fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error> {
                    if tag != b'i' {
                        return unexpected(tag, stringify!($t));
                    }
                    let digits = number(input, b';')?;
                    digits.parse().map_err(|_| format!("{} is no {}", digits, stringify!($t)))
                }
            }
        )*};
    }
    integers!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

    impl Wire for f64 {
        fn put(&self, out: &mut Vec<u8>) {
            out.extend(format!("d{:016x}", self.to_bits()).into_bytes());
        }
        fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error> {
            if tag != b'd' {
                return unexpected(tag, "a float");
            }
            let hex = String::from_utf8(bytes_exactly(input, 16)?).map_err(|_| Error::from("a float not in hex"))?;
            u64::from_str_radix(&hex, 16).map(f64::from_bits).map_err(|_| Error::from("a float not in hex"))
        }
    }

    impl Wire for f32 {   // crosses as the double it widens to
        fn put(&self, out: &mut Vec<u8>) {
            f64::from(*self).put(out)
        }
        fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error> {
            f64::take(tag, input).map(|value| value as f32)
        }
    }

    impl Wire for bool {
        fn put(&self, out: &mut Vec<u8>) {
            out.push(if *self { b'T' } else { b'F' });
        }
        fn take(tag: u8, _: &mut dyn Read) -> Result<Self, Error> {
            match tag {
                b'T' => Ok(true),
                b'F' => Ok(false),
                _ => unexpected(tag, "a bool"),
            }
        }
    }

    impl Wire for String {
        fn put(&self, out: &mut Vec<u8>) {
            out.extend(format!("s{}:", self.len()).into_bytes());
            out.extend(self.as_bytes());
        }
        fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error> {
            if tag != b's' {
                return unexpected(tag, "a string");
            }
            String::from_utf8(bytes(input)?).map_err(|_| Error::from("a string that is not UTF-8"))
        }
    }

    impl Wire for char {
        fn put(&self, out: &mut Vec<u8>) {
            out.extend(format!("c{}:{}", self.len_utf8(), self).into_bytes());
        }
        fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error> {
            if tag != b'c' {
                return unexpected(tag, "a char");
            }
            let text = String::from_utf8(bytes(input)?).map_err(|_| Error::from("a char that is not UTF-8"))?;
            let mut chars = text.chars();
            match (chars.next(), chars.next()) {
                (Some(one), None) => Ok(one),
                _ => Err("a char that is not one code point".into()),
            }
        }
    }

    impl Wire for () {
        fn put(&self, out: &mut Vec<u8>) {
            out.push(b'N');
        }
        fn take(tag: u8, _: &mut dyn Read) -> Result<Self, Error> {
            if tag == b'N' || tag == b'U' { Ok(()) } else { unexpected(tag, "()") }
        }
    }

    impl<T: Wire> Wire for Option<T> {
        fn put(&self, out: &mut Vec<u8>) {
            match self {
                Some(value) => value.put(out),
                None => out.push(b'N'),
            }
        }
        fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error> {
            if tag == b'N' || tag == b'U' { Ok(None) } else { T::take(tag, input).map(Some) }
        }
    }

    impl<T: Wire> Wire for Vec<T> {
        fn put(&self, out: &mut Vec<u8>) {
            out.extend(format!("l{}:", self.len()).into_bytes());
            self.iter().for_each(|item| item.put(out));
        }
        fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error> {
            if tag != b'l' {
                return unexpected(tag, "a Vec");
            }
            (0..count(input)?).map(|_| read(input)).collect()
        }
    }

    impl<K: Wire + Eq + Hash, V: Wire> Wire for HashMap<K, V> {
        fn put(&self, out: &mut Vec<u8>) {
            out.extend(format!("m{}:", self.len()).into_bytes());
            for (key, value) in self {
                key.put(out);
                value.put(out);
            }
        }
        fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error> {
            if tag != b'm' {
                return unexpected(tag, "a HashMap");
            }
            (0..count(input)?).map(|_| Ok((read(input)?, read(input)?))).collect()
        }
    }

    macro_rules! tuples {
        ($(($($t:ident . $i:tt),+)),*) => {$(
            impl<$($t: Wire),+> Wire for ($($t,)+) {
                fn put(&self, out: &mut Vec<u8>) {
                    out.extend(format!("t{}:", [$($i),+].len()).into_bytes());
                    $(self.$i.put(out);)+
                }
                fn take(tag: u8, input: &mut dyn Read) -> Result<Self, Error> {
                    if tag != b't' || count(input)? != [$($i),+].len() {
                        return unexpected(tag, "a tuple of its length");
                    }
                    Ok(($(read::<$t>(input)?,)+))
                }
            }
        )*};
    }
    tuples!((A.0), (A.0, B.1), (A.0, B.1, C.2), (A.0, B.1, C.2, D.3), (A.0, B.1, C.2, D.3, E.4));
}
