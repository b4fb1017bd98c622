# The trusted loader that runs a function-style R program and then its tests (docs/guards.md).
#
# This file is the run's source file, so a program that reads its own source (commandArgs()'s --file=) finds
# neither the tests nor the end-of-tests marker: both arrive on stdin (graders/guarded.prepare: a line "marker,
# prompt length, completion length", then prompt, completion and tests), read to the end before the program runs.
# Rscript evaluates this file's three top-level expressions in turn, and runs the task callbacks after each:
#   1. reads the request, parses program and tests, copies the tools, and registers the callback, whose closure
#      alone holds the tests and the marker (R lists a task callback's name, never its function);
#   2. evaluates the program in the global environment, as a plain run does; no frame of this loader is on the
#      stack, so the program's top level reaches nothing of the tests;
#   3. runs the tests, which the callback put in place after 2 (and the callbacks the program added it removed).
# The tests run in an environment of their own: the prompt's names as the program left them, then copies of base's
# bindings taken before the program ran (those the tests name and those these name in turn, base's closures
# enclosed by the copies, so that what the program rebinds in base's namespace or the global environment changes
# none of them), then the attached packages; never the global environment. After 3 has completed, the callback writes the marker to stderr.
# Base R only: this runs under the sandbox's Rscript.

invisible(local({
  stdin <- file("stdin", "rb")
  chunks <- list()
  repeat {
    chunk <- readBin(stdin, "raw", 1048576L)
    if (!length(chunk)) break
    chunks[[length(chunks) + 1L]] <- chunk
  }
  close(stdin)
  data <- unlist(chunks, use.names = FALSE)
  newline <- match(as.raw(10L), data)
  header <- strsplit(rawToChar(data[seq_len(newline - 1L)]), " ", fixed = TRUE)[[1L]]
  marker <- header[1L]
  text <- function(from, to) {     # bytes from..to as UTF-8 text (the header's lengths are in bytes)
    value <- if (from <= to) rawToChar(data[from:to]) else ""
    Encoding(value) <- "UTF-8"
    value
  }
  prompt_end <- newline + as.numeric(header[2L])
  program_end <- prompt_end + as.numeric(header[3L])
  prompt <- text(newline + 1, prompt_end)
  program <- text(newline + 1, program_end)
  # the tests' lines numbered as in prompt + completion + "\n" + tests
  program_lines <- sum(data[seq_len(program_end - newline) + newline] == as.raw(10L)) + 1L
  tests <- parse(text = c(rep("", program_lines), text(program_end + 1, length(data))),
                 srcfile = srcfilecopy("program.r", ""), keep.source = FALSE)
  assign(".reward_program", parse(text = program, srcfile = srcfilecopy("program.r", ""), keep.source = FALSE),
         envir = globalenv())

  # the tools: base's bindings the tests name, and those their closures name (with the S3 methods of the generics
  # among them), copied and enclosed by the copy; two levels, as forcing all of base's lazy-loaded bindings costs
  # more than the run; behind them the attached packages, then base itself
  tools <- new.env(parent = parent.env(globalenv()))
  base <- .BaseNamespaceEnv
  in_base <- ls(base, all.names = TRUE, sorted = FALSE)
  wanted <- all.names(tests)
  for (level in 1:2) {
    wanted <- setdiff(intersect(wanted, in_base), names(tools))
    values <- mget(wanted, envir = base)
    closures <- vapply(values, function(value) is.function(value) && identical(environment(value), base), NA)
    values[closures] <- lapply(values[closures], `environment<-`, tools)
    list2env(values, tools)
    named <- lapply(values[closures], function(value) c(all.names(body(value)), unlist(lapply(formals(value), all.names))))
    generics <- names(named)[vapply(named, function(names) "UseMethod" %in% names, NA)]
    wanted <- c(unlist(named, use.names = FALSE),
                unlist(lapply(paste0(generics, "."), function(prefix) in_base[startsWith(in_base, prefix)])))
  }
  prompt_names <- regmatches(prompt, gregexpr("(?m)^[A-Za-z.][A-Za-z0-9._]*(?=\\s*(<-|=))", prompt, perl = TRUE))[[1L]]

  finished <- new.env(parent = emptyenv())
  callback <- function(expr, value, ok, visible) {
    task <<- task + 1L
    if (task == 2L) {      # the program has run: the tests go in place, and nothing of the program's runs before them
      for (other in setdiff(getTaskCallbackNames(), "reward_tests")) removeTaskCallback(other)
      suppressWarnings(rm(list = c(".reward_program", ".reward_tests"), envir = globalenv()))
      names <- new.env(parent = tools)
      for (name in prompt_names) {
        if (exists(name, envir = globalenv(), inherits = FALSE)) assign(name, get(name, envir = globalenv()), names)
      }
      run <- function() {
        eval(tests, new.env(parent = names))
        assign("done", TRUE, envir = finished)
        invisible()
      }
      environment(run) <- list2env(list(tests = tests, names = names, finished = finished), parent = tools)
      assign(".reward_tests", run, envir = globalenv())
    }
    if (task < 3L) return(TRUE)
    if (isTRUE(get0("done", envir = finished, inherits = FALSE))) cat(marker, "\n", sep = "", file = stderr())
    FALSE
  }
  environment(callback) <- list2env(list(task = 0L, tools = tools, tests = tests, prompt_names = prompt_names,
                                         finished = finished, marker = marker), parent = tools)
  addTaskCallback(callback, name = "reward_tests")
}))
eval(.reward_program)
.reward_tests()
