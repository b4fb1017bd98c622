@@codec@@
;; The entry function's calls sent to the program (fd 3), its replies read back (fd 4); Clojure's values are
;; immutable, so no argument changes in the call
(def ^:private calls (java.io.BufferedOutputStream. (java.io.FileOutputStream. "/dev/fd/3")))
(def ^:private replies (java.io.BufferedInputStream. (java.io.FileInputStream. "/dev/fd/4")))

(defn call [args]
  (let [out (java.io.ByteArrayOutputStream.)]
    (try (counted out "C" (count args))
         (doseq [arg args] (write-value arg out))
         (catch Exception e   ; the benchmark's argument, not the program's doing
           (.println System/err (str "@@unsupported@@" (.getMessage e)))
           (.flush System/err)
           (System/exit 1)))
    (let [tag (try (.writeTo out calls)
                   (.flush calls)
                   (.read replies)
                   (catch java.io.IOException _ -1))]
      (try
        (case (if (neg? tag) nil (char tag))
          \R (let [result (read-value replies)]
               (read-value replies)
               result)
          \X (let [name (read-value replies) message (read-value replies)]
               (if (and (string? name) (string? message))
                 (throw (exception name message))
                 (throw (RuntimeException. "the program's reply is not a value"))))
          nil (throw (RuntimeException. "the program ended during a call"))
          (throw (RuntimeException. "the program's reply is not a value")))
        (catch java.io.IOException e
          (throw (RuntimeException. (str "the program's reply is not a value (" (.getMessage e) ")"))))))))
(in-ns (ns-name home))

(defn @@entry@@ [@@params@@] (rs-wire/call [@@params@@]))
