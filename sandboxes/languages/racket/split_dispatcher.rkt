
@@codec@@
;; The entry function's calls read from stdin, one reply each on stdout. A submodule the program's module requires is
;; instantiated before the program's first line: it keeps stdin and stdout for itself, and what the program reads
;; or prints from then on is an empty input and stderr, never the calls or the replies.
(module rs-serve racket/base
  (require (submod ".." rs-wire))
  (provide rs-serve)
  (define calls (current-input-port))
  (define replies (current-output-port))
  (current-input-port (open-input-bytes #""))
  (current-output-port (current-error-port))

  (define (rs-serve entry)
    (when (eqv? (read-byte calls) (char->integer #\C))
      (define args (for/list ([_ (in-range (rs-number calls 58))]) (rs-read calls)))
      (define out (open-output-bytes))
      (with-handlers ([(lambda (_) #t)       ; the tests see whatever the function raised
                       (lambda (raised)
                         (define-values (name message) (rs-exn-parts raised))
                         (set! out (open-output-bytes))
                         (write-bytes #"X" out)
                         (rs-write name out)
                         (rs-write message out))])
        (define result (apply entry args))
        (write-bytes #"R" out)
        (rs-write result out)
        (rs-write args out))
      (write-bytes (get-output-bytes out) replies)
      (flush-output replies)
      (rs-serve entry))))
(require (only-in (submod "." rs-serve) rs-serve))
(rs-serve @@entry@@)
