# The entry function's calls sent to the program (fd 3), its replies read back (fd 4); its code sees base R's own
# functions, whatever the prompt names
@@entry@@ <- local({
@@codec@@
  calls <- file("/dev/fd/3", "wb", raw = TRUE)
  replies <- file("/dev/fd/4", "rb", raw = TRUE)
  function(...) {
    args <- list(...)
    out <- tryCatch(c(charToRaw(paste0("C", length(args), ":")), unlist(lapply(args, .rs_write), use.names = FALSE)),
                    error = function(e) {   # the benchmark's argument, not the program's doing
                      cat("@@unsupported@@", conditionMessage(e), "\n", sep = "", file = stderr())
                      quit(save = "no", status = 1L)
                    })
    sent <- tryCatch({
      writeBin(out, calls)
      flush(calls)
      TRUE
    }, error = function(e) FALSE)
    # a reply follows a NUL: before it, what the program wrote to its stdout before its dispatcher moved it
    repeat {
      byte <- if (sent) readBin(replies, "raw", 1L) else raw()
      if (!length(byte) || byte == as.raw(0L)) break
    }
    tag <- if (length(byte)) rawToChar(readBin(replies, "raw", 1L)) else ""
    if (identical(tag, "R")) {
      result <- .rs_read(replies)
      .rs_read(replies)   # the arguments after the call: R's are the caller's own copies
      return(result)
    }
    if (identical(tag, "X")) {
      name <- .rs_read(replies)
      stop(.rs_read(replies), call. = FALSE)
    }
    stop(if (identical(tag, "")) "the program ended during a call" else "the program's reply is not a value")
  }
}, envir = new.env(parent = baseenv()))
