;; The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.
;; In a namespace of its own (no name of the prompt's, the program's or the tests' reaches it); `home` is the one to
;; go back to.
(intern (create-ns 'rs-wire) 'home *ns*)
(ns rs-wire)

(defn- utf-8 [^String text]   ; strict: a lone surrogate is no text of the tests
  (let [data (.encode (.newEncoder java.nio.charset.StandardCharsets/UTF_8) (java.nio.CharBuffer/wrap text))]
    (java.util.Arrays/copyOf (.array data) (.limit data))))

(defn- counted [^java.io.OutputStream out tag n]
  (.write out (.getBytes (str tag n ":") "US-ASCII")))

;; what Clojure's = tells apart crosses apart: integers of every width (= holds across them) and floats; a seq,
;; vector or java.util.List is a list, any other value (a Ratio, a keyword, an array, a record) fails the call
(defn write-value [value ^java.io.OutputStream out]
  (cond
    (nil? value) (.write out (int \N))
    (instance? Boolean value) (.write out (int (if value \T \F)))
    (or (instance? Long value) (instance? Integer value) (instance? Short value) (instance? Byte value)
        (instance? clojure.lang.BigInt value) (instance? java.math.BigInteger value))
    (.write out (.getBytes (str "i" value ";") "US-ASCII"))
    (or (instance? Double value) (instance? Float value))
    (.write out (.getBytes (format "d%016x" (Double/doubleToRawLongBits (double value))) "US-ASCII"))
    (or (string? value) (char? value))
    (let [data (utf-8 (str value))]
      (counted out (if (string? value) "s" "c") (alength data))
      (.write out data))
    (and (instance? java.util.Map value) (not (record? value)))
    (do (counted out "m" (count value))
        (doseq [[key item] value] (write-value key out) (write-value item out)))
    (instance? java.util.Set value)
    (do (counted out "e" (count value))
        (doseq [item value] (write-value item out)))
    (or (seq? value) (instance? java.util.List value))
    (do (counted out "l" (count value))
        (doseq [item value] (write-value item out)))
    :else (throw (IllegalArgumentException. (str "a " (.getName (class value))
                                                 " is not a value that crosses to the tests")))))

(defn- malformed [what] (throw (java.io.IOException. (str "the wire format: " what))))

(defn- exactly ^bytes [^java.io.InputStream in n]
  (let [data (.readNBytes in (int n))]
    (if (= (alength data) n) data (malformed "the other side ended in a value"))))

(defn number
  "the decimal integer before the byte `end`"
  [^java.io.InputStream in end]
  (let [digits (StringBuilder.)]
    (loop []
      (let [byte (.read in)]
        (cond (= byte (int end)) nil
              (or (neg? byte) (> (.length digits) 100000)) (malformed "a number without its end")
              :else (do (.append digits (char byte)) (recur)))))
    (let [text (str digits)]
      (when-not (re-matches #"-?[0-9]+" text) (malformed "a number that is not decimal"))
      (let [n (java.math.BigInteger. text)]
        (if (< (.bitLength n) 64) (.longValue n) (bigint n))))))

(defn- text [^bytes data]
  (try (str (.decode (.newDecoder java.nio.charset.StandardCharsets/UTF_8) (java.nio.ByteBuffer/wrap data)))
       (catch java.nio.charset.CharacterCodingException _ (malformed "text that is not UTF-8"))))

(defn read-value
  "one value read from the stream `in`: Clojure's own data only (lists and tuples as vectors)"
  [^java.io.InputStream in]
  (let [tag (.read in)]
    (case (if (neg? tag) nil (char tag))
      \N nil
      \T true
      \F false
      \i (number in \;)
      \d (let [hex (String. (exactly in 16) "US-ASCII")]
           (when-not (re-matches #"[0-9a-fA-F]{16}" hex) (malformed "a float that is not 16 hex digits"))
           (Double/longBitsToDouble (Long/parseUnsignedLong hex 16)))
      (\s \c \l \t \e \m)
      (let [n (number in \:)]
        (case (char tag)
          \s (text (exactly in n))
          \c (let [one (text (exactly in n))]
               (if (= (count one) 1) (.charAt ^String one 0) (malformed "a character that is not one")))
          (\l \t) (vec (repeatedly n #(read-value in)))
          \e (set (repeatedly n #(read-value in)))
          \m (into {} (repeatedly n #(let [key (read-value in)] [key (read-value in)])))))
      (malformed (str "no value: " tag)))))

(defn exception-name
  "the program's side: the JDK class (the class loader's own, never the program's) that `e` crosses as"
  [^Throwable e]
  (loop [kind (class e)]
    (if (nil? (.getClassLoader kind)) (.getName kind) (recur (.getSuperclass kind)))))

(defn exception
  "the tests' side: that JDK exception (else its nearest superclass made of a message), with the message"
  [^String name ^String message]
  (let [made (fn [^Class kind parameter]
               (try (.newInstance (.getConstructor kind (into-array Class [parameter])) (object-array [message]))
                    (catch Exception _ nil)))]
    (loop [kind (try (Class/forName name false nil) (catch ClassNotFoundException _ RuntimeException))]
      (if (.isAssignableFrom Throwable kind)
        (or (made kind String) (made kind Object) (recur (.getSuperclass kind)))
        (recur RuntimeException)))))
