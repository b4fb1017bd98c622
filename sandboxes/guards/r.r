# The trusted loader that runs a function-style R program and then its tests (docs/guards.md).
#
# This file is the run's source file, so a program that reads its own source (commandArgs()'s --file=) finds
# neither the tests nor the end-of-tests marker: both arrive on stdin (graders/guarded.prepare: a line "marker,
# prompt length, completion length", then prompt, completion and tests), read to the end before the program runs.
# Rscript evaluates this file's three top-level expressions in turn, and runs the task callbacks after each:
#   1. reads the request, parses program and tests (a brace that opens the tests and closes the prompt's function
#      is the program's), copies the tools, and registers the callback, whose closure alone holds the tests and the
#      marker (R lists a task callback's name, never its function);
#   2. evaluates the program in the global environment, as a plain run does; no frame of this loader is on the
#      stack, so the program's top level reaches nothing of the tests;
#   3. runs the tests, which the callback put in place after 2 (and the callbacks the program added it removed).
# The tests run in an environment of their own: the program's values of the names the prompt defines and of those
# the tests name that no tool has (the prompt's function), then copies of base's bindings taken before the program
# ran (those the tests name and those these name in turn, base's closures enclosed by the copies, so that what the
# program rebinds in base's namespace or the global environment changes none of them), then the attached packages;
# never the global environment. The callback's steps look names up in those copies too. After 3 has completed, the
# callback writes the marker to stderr. The byte-code compiler is off while this loader prepares (its code runs
# once) and back on before the program runs.
# Base R only: this runs under the sandbox's Rscript.

invisible(local({
  jit <- .Internal(enableJIT(0L))    # nothing of this loader is worth compiling: it runs once
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
  prompt_length <- as.numeric(header[2L])
  program_length <- prompt_length + as.numeric(header[3L])
  body <- data[-seq_len(newline)]
  # prompt, program and tests as UTF-8 text (the header's lengths are in bytes)
  texts <- vapply(list(body[seq_len(prompt_length)], body[seq_len(program_length)], body[-seq_len(program_length)]),
                  rawToChar, "")
  Encoding(texts) <- "UTF-8"
  # tests that open with the brace closing the prompt's function (a MultiPL-E layout): that brace is the program's
  lead <- regmatches(texts[3L], regexpr("^(\\s*\\}[ \t]*(\n|$))*", texts[3L], perl = TRUE))
  program <- paste0(texts[2L], "\n", lead)
  # the tests' lines numbered as in prompt + completion + "\n" + tests
  tests <- parse(text = c(rep("", sum(charToRaw(program) == as.raw(10L))), substring(texts[3L], nchar(lead) + 1L)),
                 srcfile = srcfilecopy("program.r", ""), keep.source = FALSE)
  assign(".reward_program", parse(text = program, srcfile = srcfilecopy("program.r", ""), keep.source = FALSE),
         envir = globalenv())

  prompt_names <- regmatches(texts[1L], gregexpr("(?m)^[A-Za-z.][A-Za-z0-9._]*(?=\\s*(<-|=))", texts[1L],
                                                 perl = TRUE))[[1L]]

  finished <- new.env(parent = emptyenv())
  steps <- list(
    function() {           # this loader has run: the program's code is compiled as in a plain run
      .Internal(enableJIT(jit))
      TRUE
    },
    function() {           # the program has run: the tests go in place, and nothing of the program's runs before them
      vapply(setdiff(getTaskCallbackNames(), "reward_tests"), removeTaskCallback, NA)
      suppressWarnings(rm(list = c(".reward_program", ".reward_tests"), envir = globalenv()))
      names <- new.env(parent = tools)
      present <- program_names[vapply(program_names, exists, NA, envir = globalenv(), inherits = FALSE)]
      list2env(mget(present, envir = globalenv()), names)
      run <- function() {
        eval(tests, new.env(parent = names))
        assign("done", TRUE, envir = finished)
        invisible()
      }
      environment(run) <- list2env(list(tests = tests, names = names, finished = finished), parent = tools)
      assign(".reward_tests", run, envir = globalenv())
      TRUE
    },
    function() {           # the tests have run
      if (isTRUE(get0("done", envir = finished, inherits = FALSE))) cat(marker, "\n", sep = "", file = stderr())
      FALSE
    })
  callback <- function(expr, value, ok, visible) {
    task <<- task + 1L
    steps[[task]]()
  }

  # the tools: base's bindings that the tests and the callback's steps name, and those their closures name (with
  # the S3 methods of the generics among them), copied and enclosed by the copy, their byte code kept (compiling
  # them again costs more than a run); two levels, as forcing all of base's lazy-loaded bindings costs more than the
  # run too; behind them the attached packages, then base itself
  tools <- new.env(parent = parent.env(globalenv()))
  base <- .BaseNamespaceEnv
  in_base <- ls(base, all.names = TRUE, sorted = FALSE)
  enclose <- function(f) {
    code <- .Internal(bodyCode(f))
    if (typeof(code) == "bytecode") .Internal(bcClose(formals(f), code, tools)) else `environment<-`(f, tools)
  }
  wanted <- c(all.names(tests), all.names(body(callback)), unlist(lapply(lapply(steps, body), all.names)))
  for (level in 1:2) {
    wanted <- setdiff(intersect(wanted, in_base), names(tools))
    values <- mget(wanted, envir = base)
    closures <- vapply(lapply(values, environment), identical, NA, base)
    values[closures] <- lapply(values[closures], enclose)
    list2env(values, tools)
    named <- lapply(lapply(values[closures], body), all.names)
    defaults <- unlist(lapply(lapply(values[closures], formals), as.list), use.names = FALSE)
    generics <- names(named)[vapply(named, is.element, NA, el = "UseMethod")]
    methods <- if (length(generics)) grep(paste0("^(", paste(gsub(".", "\\.", generics, fixed = TRUE),
                                                              collapse = "|"), ")\\."), in_base, value = TRUE)
    wanted <- c(unlist(named, use.names = FALSE), all.names(as.call(c(as.name("list"), defaults))), methods)
  }
  # the program's names for the tests: those the prompt defines, and those the tests name that no tool has
  free <- all.names(tests)
  program_names <- unique(c(prompt_names, free[!vapply(free, exists, NA, envir = tools)]))
  # what the callback's steps find: these values, then the tools (never the global environment, nor this one)
  found <- list2env(list(jit = jit, tools = tools, tests = tests, finished = finished, program_names = program_names,
                         marker = marker), parent = tools)
  steps <- lapply(steps, `environment<-`, found)
  environment(callback) <- list2env(list(task = 0L, steps = steps), parent = tools)
  addTaskCallback(callback, name = "reward_tests")
}))
eval(.reward_program)
.reward_tests()
