@@codec@@
;; Before the program's first line: the calls are read from stdin and the replies written on stdout by this namespace
;; alone; what the program reads or prints is an empty input and stderr
(def ^:private calls (java.io.BufferedInputStream. (java.io.FileInputStream. java.io.FileDescriptor/in)))
(def ^:private replies (java.io.BufferedOutputStream. (java.io.FileOutputStream. java.io.FileDescriptor/out)))
(System/setIn (java.io.ByteArrayInputStream. (byte-array 0)))
(System/setOut System/err)
(alter-var-root #'*in* (constantly (clojure.lang.LineNumberingPushbackReader. (java.io.StringReader. ""))))
(alter-var-root #'*out* (constantly *err*))

(defn serve
  "each call of `entry` read from stdin, its reply written on stdout (its arguments, immutable, go back as none)"
  [entry]
  (while (= (.read calls) (int \C))
    (let [args (doall (repeatedly (number calls \:) #(read-value calls)))
          out (java.io.ByteArrayOutputStream.)]
      (try (let [result (apply entry args)]
             (.write out (int \R))
             (write-value result out)
             (counted out "l" 0))
           (catch Throwable e   ; the tests see whatever the function threw
             (.reset out)
             (.write out (int \X))
             (write-value (exception-name e) out)
             (write-value (str (.getMessage e)) out)))
      (.writeTo out replies)
      (.flush replies))))
(in-ns (ns-name home))

