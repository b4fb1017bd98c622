@@codec@@
/// The tests' side of a call: its arguments written on fd 3, the result read back from fd 4.
fn rs_call<R: rs_wire::Wire>(arguments: Vec<Vec<u8>>) -> R {
    use std::cell::RefCell;
    use std::fs::File;
    use std::io::{BufReader, Write};
    use std::os::unix::io::FromRawFd;
    thread_local! {
        static CALLS: RefCell<File> = RefCell::new(unsafe { File::from_raw_fd(3) });
        static REPLIES: RefCell<BufReader<File>> = RefCell::new(BufReader::new(unsafe { File::from_raw_fd(4) }));
    }
    let mut call = format!("C{}:", arguments.len()).into_bytes();
    arguments.iter().for_each(|argument| call.extend(argument));
    let sent = CALLS.with(|calls| calls.borrow_mut().write_all(&call).is_ok());
    REPLIES.with(|replies| {
        let replies = &mut *replies.borrow_mut();
        let outcome = match if sent { rs_wire::byte(replies).ok() } else { None } {
            Some(b'R') => rs_wire::read::<R>(replies).and_then(|result| rs_wire::skip(replies).map(|_| result)),
            Some(b'X') => match (rs_wire::read::<String>(replies), rs_wire::read::<String>(replies)) {
                (Ok(name), Ok(message)) => panic!("the function raised {}: {}", name, message),
                _ => Err("an error that is not two strings".into()),
            },
            Some(_) => Err("no reply's tag".into()),
            None => panic!("the program ended during a call"),
        };
        outcome.unwrap_or_else(|why| panic!("the program's reply is not a value: {}", why))
    })
}

fn @@entry@@(@@params@@) -> @@ret@@ {
    rs_call(vec![@@encode@@])
}
