@@codec@@
/// The program's side: each call read from fd 0, the function called, its result written on fd 1.
fn main() {
    use std::io::Write;
    use std::os::unix::io::FromRawFd;
    extern "C" {
        fn dup(fd: i32) -> i32;
        fn dup2(from: i32, to: i32) -> i32;
    }
    let mut replies = unsafe { std::fs::File::from_raw_fd(dup(1)) };
    unsafe { dup2(2, 1) };      // what the program prints goes to stderr, never among the replies
    let stdin = std::io::stdin();
    let mut calls = stdin.lock();
    while rs_wire::byte(&mut calls) == Ok(b'C') && rs_wire::count(&mut calls).is_ok() {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<_, rs_wire::Error> {
            Ok(@@entry@@(@@decode@@))
        }));
        let raised = |message: String| [b"X".to_vec(), rs_wire::encoded(&String::from("panic")),
                                         rs_wire::encoded(&message)].concat();
        let reply = match outcome {
            Ok(Ok(result)) => [b"R".to_vec(), rs_wire::encoded(&result), b"l0:".to_vec()].concat(),
            Ok(Err(why)) => raised(why),
            Err(payload) => raised(payload.downcast_ref::<&str>().map(|text| text.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned()).unwrap_or_default()),
        };
        if replies.write_all(&reply).is_err() {
            return;
        }
    }
}
