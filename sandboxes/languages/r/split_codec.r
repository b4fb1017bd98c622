# The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.
# R's values cross so that identical() holds between a value and what is read back:
#   NULL                                   N
#   TRUE, FALSE, 2L, 2.5, "a" (a logical, integer, double or character vector of length 1, no attribute, not NA;
#   a double NA or NaN is its bits)        T, F, i, d, s
#   a raw vector                           y
#   any other of those vectors (another length, an NA, names): the tuple (its typeof, its elements, and its names
#   if it has them)                        t2: s<typeof> l<n>:<elements>  or  t3: ... l<n>:<names>
#                                          (elements and names by the tags above, an NA as N)
#   an unnamed list                        l<n>: <values>
#   a named list                           m<n>: (s<name> value)*   (an NA name as N)
# Anything else (other attributes: a class, dim, levels; functions, environments) does not cross.
.rs_tag <- function(tag) charToRaw(tag)
.rs_string <- function(tag, text) {
  bytes <- charToRaw(enc2utf8(text))
  c(charToRaw(paste0(tag, length(bytes), ":")), bytes)
}
.rs_element <- function(value) {
  if (is.double(value)) return(c(.rs_tag("d"), charToRaw(paste(as.character(writeBin(value, raw(), size = 8L,
                                                                                   endian = "big")), collapse = ""))))
  if (is.na(value)) return(.rs_tag("N"))
  if (is.logical(value)) return(.rs_tag(if (value) "T" else "F"))
  if (is.integer(value)) return(charToRaw(paste0("i", value, ";")))
  .rs_string("s", value)
}
.rs_elements <- function(values) c(charToRaw(paste0("l", length(values), ":")),
                                   unlist(lapply(seq_along(values), function(k) .rs_element(values[[k]]))))
.rs_write <- function(value) {
  attributes_of <- names(attributes(value))
  if (is.null(value)) return(.rs_tag("N"))
  if (typeof(value) %in% c("logical", "integer", "double", "character") && all(attributes_of == "names")) {
    if (length(value) == 1L && is.null(attributes_of) && (is.double(value) || !is.na(value))) {
      return(.rs_element(value))
    }
    named <- !is.null(attributes_of)
    return(c(charToRaw(if (named) "t3:" else "t2:"), .rs_string("s", typeof(value)), .rs_elements(unname(value)),
             if (named) .rs_elements(names(value))))
  }
  if (is.raw(value) && is.null(attributes_of)) return(c(charToRaw(paste0("y", length(value), ":")), value))
  if (typeof(value) == "list" && all(attributes_of == "names")) {
    if (is.null(attributes_of)) {
      return(c(charToRaw(paste0("l", length(value), ":")), unlist(lapply(value, .rs_write), use.names = FALSE)))
    }
    keys <- names(value)
    return(c(charToRaw(paste0("m", length(value), ":")), unlist(lapply(seq_along(value), function(k)
      c(.rs_element(keys[[k]]), .rs_write(value[[k]]))), use.names = FALSE)))
  }
  stop(sprintf("a %s is not a value that crosses to the tests", paste(class(value), collapse = "/")))
}

.rs_exactly <- function(con, count) {
  data <- readBin(con, "raw", count)
  if (length(data) != count) stop("the other side ended in the middle of a value")
  data
}
.rs_number <- function(con, end) {
  digits <- raw()
  while ((byte <- .rs_exactly(con, 1L)) != charToRaw(end)) {
    if (length(digits) > 100000L) stop("a number without its end in the wire format")
    digits <- c(digits, byte)
  }
  text <- rawToChar(digits)
  if (!grepl("^-?[0-9]+$", text)) stop("no number of the wire format: ", text)
  text
}
# one value read from the binary connection `con`: base R's vectors and lists only
.rs_read <- function(con) {
  tag <- rawToChar(.rs_exactly(con, 1L))
  switch(tag,
    N = , U = NULL,
    T = TRUE,
    F = FALSE,
    i = {
      number <- as.numeric(text <- .rs_number(con, ";"))
      if (abs(number) <= .Machine$integer.max) as.integer(text) else number
    },
    d = {
      hex <- rawToChar(.rs_exactly(con, 16L))
      if (!grepl("^[0-9a-f]{16}$", hex)) stop("no float of the wire format: ", hex)
      readBin(as.raw(strtoi(substring(hex, seq(1L, 15L, 2L), seq(2L, 16L, 2L)), 16L)), "double", size = 8L,
              endian = "big")
    },
    {
      count <- as.numeric(.rs_number(con, ":"))
      switch(tag,
        s = , c = {
          text <- rawToChar(.rs_exactly(con, count))
          Encoding(text) <- "UTF-8"
          if (!validUTF8(text)) stop("a string that is not UTF-8")
          text
        },
        y = .rs_exactly(con, count),
        l = , e = lapply(seq_len(count), function(k) .rs_read(con)),
        m = {
          pairs <- vector("list", count)
          keys <- character(count)
          for (k in seq_len(count)) {
            key <- .rs_read(con)
            if (!(is.null(key) || is.character(key) && length(key) == 1L && is.null(attributes(key)))) {
              stop("a map key that is not a string")
            }
            keys[k] <- if (is.null(key)) NA_character_ else key
            pairs[k] <- list(.rs_read(con))
          }
          names(pairs) <- keys
          pairs
        },
        t = .rs_vector(con, count),
        stop("no tag of the wire format: ", tag))
    })
}
# a vector (see above): its typeof, its elements, its names
.rs_vector <- function(con, count) {
  type <- .rs_read(con)
  if (!count %in% 2:3 || !identical(type, "logical") && !identical(type, "integer") && !identical(type, "double") &&
      !identical(type, "character")) stop("no vector of the wire format")
  typed <- function(items, type) {
    if (!is.list(items) || !all(vapply(items, function(item) is.null(item) ||
                                         length(item) == 1L && typeof(item) == type, NA))) {
      stop("a vector's elements are not of its type")
    }
    vapply(items, function(item) if (is.null(item)) as.vector(NA, type) else item, vector(type, 1L))
  }
  value <- typed(.rs_read(con), type)
  if (count == 3L) {
    keys <- typed(.rs_read(con), "character")
    if (length(keys) != length(value)) stop("a vector's names are not one per element")
    names(value) <- keys
  }
  value
}
