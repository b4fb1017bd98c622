@@codec@@
;; The entry function's calls sent to the program (fd 3), its replies read back (fd 4)
(module rs-split racket/base
  (require (submod ".." rs-wire))
  (provide rs-split-call)
  (define calls (open-output-file "/dev/fd/3" #:exists 'append))
  (define replies (open-input-file "/dev/fd/4"))

  (define (ended _) (error "the program ended during a call"))

  ;; what the function did to the caller's mutable vectors, done to them (strings cross immutable, as the tests'
  ;; literals are; hashes and sets cross only immutable)
  (define (copy-back! arg changed)
    (cond [(and (pair? arg) (pair? changed))
           (copy-back! (car arg) (car changed))
           (copy-back! (cdr arg) (cdr changed))]
          [(and (vector? arg) (not (immutable? arg)) (vector? changed)
                (= (vector-length arg) (vector-length changed)))
           (for ([at (in-range (vector-length arg))])
             (copy-back! (vector-ref arg at) (vector-ref changed at))
             (unless (equal? (vector-ref arg at) (vector-ref changed at))
               (vector-set! arg at (vector-ref changed at))))]))

  (define (rs-split-call . args)
    (define out (open-output-bytes))
    (with-handlers ([exn:fail? (lambda (e)   ; the benchmark's argument, not the program's doing
                                 (eprintf "@@unsupported@@~a\n" (exn-message e))
                                 (exit 1))])
      (write-string (format "C~a:" (length args)) out)
      (for ([arg (in-list args)]) (rs-write arg out)))
    (define tag (with-handlers ([exn:fail? ended])
                  (write-bytes (get-output-bytes out) calls)
                  (flush-output calls)
                  (read-byte replies)))
    (with-handlers ([exn:fail:read? (lambda (e) (error (format "the program's reply is not a value (~a)"
                                                               (exn-message e))))])
      (case (and (byte? tag) (integer->char tag))
        [(#\R)
         (define result (rs-read replies))
         (define after (rs-read replies))
         (when (and (list? after) (= (length after) (length args)))
           (for-each copy-back! args after))
         result]
        [(#\X)
         (define name (rs-read replies))
         (define message (rs-read replies))
         (if (and (string? name) (string? message))
             (rs-exn-raise name message)
             (error "the program's reply is not a value"))]
        [(#f) (ended #f)]
        [else (error "the program's reply is not a value")]))))
(require (only-in (submod "." rs-split) rs-split-call))
(define (@@entry@@@@params@@) (rs-split-call@@params@@))
