;; The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.
;; A submodule of its own, so that no name of it meets the prompt's, the program's or the tests'.
(module rs-wire racket/base
  (require racket/set)
  (provide rs-write rs-read rs-number rs-exn-parts rs-exn-raise)

  ;; what equal? tells apart crosses apart: exact integers and flonums, lists and vectors (`t`); a hash or a set
  ;; only as the literals' kind (immutable, equal?-keyed), which is what the tests' #hash(...) is
  (define (rs-write value out)
    (define (counted tag count)
      (write-string (format "~a~a:" tag count) out))
    (cond
      [(void? value) (write-bytes #"N" out)]
      [(eq? value #t) (write-bytes #"T" out)]
      [(eq? value #f) (write-bytes #"F" out)]
      [(exact-integer? value) (write-string (format "i~a;" value) out)]
      [(double-flonum? value)
       (write-bytes #"d" out)
       (for ([byte (in-bytes (real->floating-point-bytes value 8 #t))])
         (write-string (string (string-ref "0123456789abcdef" (quotient byte 16))
                               (string-ref "0123456789abcdef" (remainder byte 16))) out))]
      [(or (string? value) (char? value) (bytes? value))
       (define data (cond [(string? value) (string->bytes/utf-8 value)]
                          [(char? value) (string->bytes/utf-8 (string value))]
                          [else value]))
       (counted (cond [(string? value) "s"] [(char? value) "c"] [else "y"]) (bytes-length data))
       (write-bytes data out)]
      [(list? value)
       (counted "l" (length value))
       (for ([item (in-list value)]) (rs-write item out))]
      [(vector? value)
       (counted "t" (vector-length value))
       (for ([item (in-vector value)]) (rs-write item out))]
      [(and (hash? value) (immutable? value) (hash-equal? value))
       (counted "m" (hash-count value))
       (for ([(key item) (in-hash value)])
         (rs-write key out)
         (rs-write item out))]
      [(and (set? value) (set-equal? value) (not (set-mutable? value)))
       (counted "e" (set-count value))
       (for ([item (in-set value)]) (rs-write item out))]
      [else (raise (exn:fail:contract (format "~.s is not a value that crosses to the tests" value)
                                      (current-continuation-marks)))]))

  (define (malformed what)
    (raise (exn:fail:read (format "the wire format: ~a" what) (current-continuation-marks) '())))

  (define (exactly in count)
    (define data (read-bytes count in))
    (if (and (bytes? data) (= (bytes-length data) count)) data (malformed "the other side ended in a value")))

  ;; the decimal integer before the byte `end`
  (define (rs-number in end)
    (define digits (open-output-bytes))
    (let loop ([size 0])
      (define byte (read-byte in))
      (cond [(eqv? byte end) (void)]
            [(or (eof-object? byte) (> size 100000)) (malformed "a number without its end")]
            [else (write-byte byte digits) (loop (add1 size))]))
    (define text (get-output-string digits))
    (if (regexp-match? #px"^-?[0-9]+$" text) (string->number text 10) (malformed "a number that is not decimal")))

  (define (utf-8 data)
    (with-handlers ([exn:fail:contract? (lambda (_) (malformed "text that is not UTF-8"))])
      (bytes->string/utf-8 data)))

  ;; one value read from the port `in`: Racket's own data only
  (define (rs-read in)
    (define tag (integer->char (let ([byte (read-byte in)]) (if (eof-object? byte) (malformed "no value") byte))))
    (define (items count) (for/list ([_ (in-range count)]) (rs-read in)))
    (case tag
      [(#\N) (void)]
      [(#\T) #t]
      [(#\F) #f]
      [(#\i) (rs-number in 59)]
      [(#\d)
       (define hex (bytes->string/latin-1 (exactly in 16)))
       (unless (regexp-match? #px"^[0-9a-fA-F]{16}$" hex) (malformed "a float that is not 16 hex digits"))
       (floating-point-bytes->real (integer->integer-bytes (string->number hex 16) 8 #f #t) #t)]
      [(#\s #\c #\y #\l #\t #\e #\m)
       (define count (rs-number in 58))
       (case tag
         [(#\s) (string->immutable-string (utf-8 (exactly in count)))]
         [(#\c)
          (define text (utf-8 (exactly in count)))
          (if (= (string-length text) 1) (string-ref text 0) (malformed "a character that is not one"))]
         [(#\y) (bytes->immutable-bytes (exactly in count))]
         [(#\l) (items count)]
         [(#\t) (list->vector (items count))]
         [(#\e) (list->set (items count))]
         [else (make-immutable-hash (for/list ([_ (in-range count)]) (let ([key (rs-read in)]) (cons key (rs-read in)))))])]
      [else (malformed (format "~s is no tag" tag))]))

  ;; Racket's exceptions made of a message alone, the narrowest first: what crosses is the first that the raised
  ;; value is, by name (anything else raised crosses as exn:fail)
  (define kinds
    (list (list "exn:fail:contract:divide-by-zero" exn:fail:contract:divide-by-zero? exn:fail:contract:divide-by-zero)
          (list "exn:fail:contract:non-fixnum-result" exn:fail:contract:non-fixnum-result?
                exn:fail:contract:non-fixnum-result)
          (list "exn:fail:contract:arity" exn:fail:contract:arity? exn:fail:contract:arity)
          (list "exn:fail:contract:continuation" exn:fail:contract:continuation? exn:fail:contract:continuation)
          (list "exn:fail:contract" exn:fail:contract? exn:fail:contract)
          (list "exn:fail:filesystem" exn:fail:filesystem? exn:fail:filesystem)
          (list "exn:fail:network" exn:fail:network? exn:fail:network)
          (list "exn:fail:out-of-memory" exn:fail:out-of-memory? exn:fail:out-of-memory)
          (list "exn:fail:unsupported" exn:fail:unsupported? exn:fail:unsupported)
          (list "exn:fail:user" exn:fail:user? exn:fail:user)
          (list "exn:fail" exn:fail? exn:fail)))

  ;; the program's side: the name and message that `raised` crosses as
  (define (rs-exn-parts raised)
    (values (or (for/first ([kind (in-list kinds)] #:when ((cadr kind) raised)) (car kind)) "exn:fail")
            (if (exn? raised) (exn-message raised) (format "uncaught exception: ~.s" raised))))

  ;; the tests' side: that exception raised
  (define (rs-exn-raise name message)
    (define kind (or (assoc name kinds) (assoc "exn:fail" kinds)))
    (raise ((caddr kind) message (current-continuation-marks)))))
