#!/usr/bin/env clojure
;; The JVM side of the "Clojure vs GoLang" write-up, built the way http-kit's client is built (http-kit itself is
;; not in Debian; this is netbench's own code on the JDK alone, README.md beside it says where it follows
;; http-kit and where it differs): one selector thread per client owns every connection; requests go on a queue
;; that the loop drains; non-blocking connects with TCP_NODELAY; kept-alive connections wait in a pool per
;; scheme, host and port (120 s, no limit on their number); TLS runs through SSLEngine on the loop thread;
;; responses (HTTP/1.1, Content-Length or chunked, read whole; redirects followed) are handed to a pool of one
;; thread per CPU, which delivers the promise each request returned.
;;
;; The program fires -n GETs of -url at once and derefs their promises, timed per repetition, after -warmup
;; untimed repetitions that let the JIT compile the path, more while -warmup_seconds have not passed (criterium,
;; which the write-up used, runs its code for 10 s before it times anything). By
;; default every repetition has a client of its own, closed after it (new connections and TLS sessions);
;; -reuse keeps one client, and its pool, across them, as the write-up's criterium run did.
;;
;;   clojure httpkit_design.clj -url http://127.0.0.1:9080/ -n 500 -reps 5 -warmup 3 [-reuse] [-insecure]
;;     -> "rep 1: 500 ok, 0 errors, 12800000 bytes, wall 0.123 s, cpu 0.100 s, 0 connections opened"
;;   (cpu: this process's CPU time during the repetition, every thread; connections: the ones it opened)
(ns httpkit-design
  (:import (java.lang.management ManagementFactory)
           (java.net InetSocketAddress StandardSocketOptions URI)
           (java.nio ByteBuffer)
           (java.nio.channels SelectionKey Selector SocketChannel)
           (java.nio.charset StandardCharsets)
           (java.security SecureRandom)
           (java.security.cert X509Certificate)
           (java.util ArrayDeque HashMap HashSet Arrays)
           (java.util.concurrent ConcurrentLinkedQueue ExecutorService Executors ThreadFactory)
           (java.util.concurrent.atomic AtomicLong)
           (javax.net.ssl SSLContext SSLEngine SSLEngineResult SSLEngineResult$HandshakeStatus
                          SSLEngineResult$Status SSLParameters X509TrustManager)))

(set! *warn-on-reflection* true)

(def ^:private program "httpkit_design.clj")
(def ^:private keep-alive-nanos (* 120 1000000000))  ; http-kit's idle connections live 120 s
(def ^:private max-redirects 10)
(def ^:private max-head-bytes (* 1024 1024))

;; ---------------------------------------------------------------------------------------------- requests

;; Where a request goes, parsed once per URL: the pool key and the request head's bytes.
(defrecord Target [^String url ^String scheme ^String host ^long port ^String pool-key ^bytes head])

;; One request in flight: its target, the promise its caller derefs, its deadline (System/nanoTime), the
;; redirects followed so far and whether it was already sent again after a kept connection failed under it.
(defrecord Request [^Target target promise ^long deadline ^long redirects retried])

(defn target-of
  "The Target of an absolute http or https URL; throws IllegalArgumentException for anything else."
  ^Target [^String url]
  (let [uri (URI/create url)
        scheme (some-> (.getScheme uri) .toLowerCase)
        host (.getHost uri)]
    (when-not (and (#{"http" "https"} scheme) host)
      (throw (IllegalArgumentException. (str "not an http or https URL: " url))))
    (let [default-port (if (= scheme "https") 443 80)
          port (if (neg? (.getPort uri)) default-port (.getPort uri))
          path (str (if (seq (.getRawPath uri)) (.getRawPath uri) "/")
                    (when-let [q (.getRawQuery uri)] (str "?" q)))
          host-header (if (= port default-port) host (str host ":" port))
          head (str "GET " path " HTTP/1.1\r\nHost: " host-header
                    "\r\nUser-Agent: netbench-httpkit-design\r\nAccept: */*\r\n\r\n")]
      (->Target url scheme host port (str scheme "://" host ":" port) (.getBytes head StandardCharsets/ISO_8859_1)))))

(defn- redirect-target
  "The Target a Location header sends `target`'s request to (relative locations resolved against it)."
  ^Target [^Target target ^String location]
  (target-of (str (.resolve (URI/create (.url target)) (.trim location)))))

;; ------------------------------------------------------------------------------------- response parsing

(defn- index-of-crlf
  "The index of the first CRLF in `b` between its position and limit, or -1."
  ^long [^ByteBuffer b]
  (let [start (.position b) end (dec (.limit b))]
    (loop [i start]
      (cond (>= i end) -1
            (and (== 13 (.get b (int i))) (== 10 (.get b (int (inc i))))) i
            :else (recur (inc i))))))

(defn- index-of-head-end
  "The index just past the first CRLFCRLF in `b` (between its position and limit), or -1."
  ^long [^ByteBuffer b]
  (let [start (.position b) end (- (.limit b) 3)]
    (loop [i start]
      (cond (>= i end) -1
            (and (== 10 (.get b (int (+ i 3)))) (== 13 (.get b (int (+ i 2))))
                 (== 10 (.get b (int (inc i)))) (== 13 (.get b (int i)))) (+ i 4)
            :else (recur (inc i))))))

(defn- parse-head
  "{:status :length (nil without Content-Length) :chunked :close :location} of a response head's text."
  [^String head]
  (let [lines (.split head "\r\n")
        status-line ^String (aget lines 0)
        parts (.split status-line " " 3)]
    (when (or (< (alength parts) 2) (not (.startsWith status-line "HTTP/1.")))
      (throw (java.io.IOException. (str "not an HTTP/1.x response: " (pr-str status-line)))))
    (loop [i 1 length nil chunked false connection nil location nil]
      (if (< i (alength lines))
        (let [line ^String (aget lines i)
              colon (.indexOf line ":")]
          (if (pos? colon)
            (let [name (.toLowerCase (.trim (.substring line 0 colon)))
                  value (.trim (.substring line (inc colon)))]
              (case name
                "content-length" (recur (inc i) (Long/parseLong value) chunked connection location)
                "transfer-encoding" (recur (inc i) length (.contains (.toLowerCase value) "chunked") connection
                                           location)
                "connection" (recur (inc i) length chunked (.toLowerCase value) location)
                "location" (recur (inc i) length chunked connection value)
                (recur (inc i) length chunked connection location)))
            (recur (inc i) length chunked connection location)))
        {:status (Long/parseLong (aget parts 1))
         :length length
         :chunked chunked
         :close (if (.startsWith status-line "HTTP/1.0")
                  (not= connection "keep-alive")
                  (= connection "close"))
         :location location}))))

;; ------------------------------------------------------------------------------------------ connections

;; What a connection needs of the client that owns it. Every call is on the loop thread.
(definterface Owner
  (release [conn])                       ; its response is done and it stays open: into the pool
  (forget [conn])                        ; it closed
  (finish [request response])            ; a response, for the callback pool to deliver
  (fail [request ^String why])           ; a request that failed, likewise
  (resend [request]))                    ; a request to send again (a redirect, or a kept connection lost)

;; A connection is a small state machine that the loop drives: connect, (TLS handshake,) write the request
;; head, read and parse the response, then back into the pool or closed.
(definterface Connection
  (^void send [request])                 ; starts an exchange: its request head goes out
  (^void connectable [])
  (^void readable [])
  (^void writable [])
  (^long idleSince [])
  (^boolean busy [])
  (^void expire [^long now])             ; fails its request when past its deadline
  (^void close [^String why])            ; a request in flight is failed, or sent again (see close)
  (^void pump [])                        ; writes what is pending; with TLS also drives the engine
  (^boolean flushNet [])
  (^void wrapFrom [^java.nio.ByteBuffer src])
  (^boolean unwrapOnce [])
  (^void parse [])
  (^void done [])
  (^void eof []))

(def ^:private ^:const HEAD 0)
(def ^:private ^:const BODY 1)            ; Content-Length bytes
(def ^:private ^:const CHUNK-SIZE 2)
(def ^:private ^:const CHUNK-DATA 3)
(def ^:private ^:const CHUNK-END 4)       ; the CRLF after a chunk's data
(def ^:private ^:const TRAILERS 5)
(def ^:private ^:const UNTIL-CLOSE 6)     ; no length: the body ends when the server closes
(def ^:private ^:const IDLE 7)

(def ^:private ^ByteBuffer no-bytes (ByteBuffer/allocate 0))

(defn- interest! [^SelectionKey key ^long ops]
  (when (and (.isValid key) (not= ops (.interestOps key)))
    (.interestOps key (int ops))))

(defn- grow ^ByteBuffer [^ByteBuffer b ^long at-least]
  ;; `b` in write mode; a bigger copy, also in write mode.
  (let [bigger (ByteBuffer/allocate (int (max at-least (* 2 (.capacity b)))))]
    (.flip b)
    (.put bigger b)))

(defn- redirect? [^long status]
  (or (== status 301) (== status 302) (== status 303) (== status 307) (== status 308)))

(deftype Conn [^Owner owner ^SocketChannel ch ^SelectionKey key ^String pool-key ^SSLEngine engine
               ^:unsynchronized-mutable ^ByteBuffer net-in      ; TLS records read, not yet unwrapped
               ^:unsynchronized-mutable ^ByteBuffer net-out     ; TLS records to write
               ^:unsynchronized-mutable ^ByteBuffer in          ; plaintext read, not yet parsed (write mode)
               ^:unsynchronized-mutable ^ByteBuffer out         ; plaintext to write: the request head
               ^:unsynchronized-mutable req
               ^:unsynchronized-mutable connected
               ^:unsynchronized-mutable reused         ; an exchange finished on it before
               ^:unsynchronized-mutable answering      ; a byte of the current response arrived
               ^:unsynchronized-mutable closed
               ^:unsynchronized-mutable ^long idle-since
               ^:unsynchronized-mutable ^long phase
               ^:unsynchronized-mutable head                    ; the current response's parsed head
               ^:unsynchronized-mutable ^long remaining         ; bytes left of the body, or of the chunk
               ^:unsynchronized-mutable ^bytes body
               ^:unsynchronized-mutable ^long body-length]
  Connection
  (send [this request]
    (set! req request)
    (set! phase HEAD)
    (set! answering false)
    (set! out (ByteBuffer/wrap ^bytes (.head ^Target (:target request))))
    (when connected (.pump this)))

  (connectable [this]
    (.finishConnect ch)
    (set! connected true)
    (interest! key SelectionKey/OP_READ)
    (when engine (.beginHandshake engine))
    (.pump this))

  (readable [this]
    (if engine
      (let [n (.read ch net-in)]
        (if (neg? n) (.eof this) (.pump this)))
      (loop []
        (let [room (.remaining in)
              n (.read ch in)]
          (cond
            (neg? n) (.eof this)
            (pos? n) (do (.parse this)
                         (when (and (== n room) (not closed)) (recur))))))))

  (writable [this] (.pump this))

  (idleSince [_] idle-since)
  (busy [_] (some? req))

  (expire [this now]
    (when (and req (> now (long (:deadline req))))
      (let [r req]
        (set! req nil)
        (.fail owner r "timed out")
        (.close this "timed out"))))

  (close [this why]
    (when-not closed
      (set! closed true)
      (.cancel key)
      (try (.close ch) (catch java.io.IOException _))
      (.forget owner this)
      (when-let [r req]
        (set! req nil)
        ;; http-kit's rule: a kept connection that the server closed before any byte of the answer costs a
        ;; reconnect, not the request (once).
        (if (and reused (not answering) (not (:retried r)))
          (.resend owner (assoc r :retried true))
          (.fail owner r why)))))

  (pump [this]
    (if (nil? engine)
      (do (when (some? out)
            (.write ch out)
            (when-not (.hasRemaining out) (set! out nil)))
          (interest! key (if (some? out) (bit-or SelectionKey/OP_READ SelectionKey/OP_WRITE) SelectionKey/OP_READ)))
      (when (.flushNet this)
        (loop []
          (when-not closed
            (let [hs (.getHandshakeStatus engine)]
              (cond
                (identical? hs SSLEngineResult$HandshakeStatus/NEED_TASK)
                (do (loop [] (when-let [task (.getDelegatedTask engine)] (.run task) (recur)))
                    (recur))
                (identical? hs SSLEngineResult$HandshakeStatus/NEED_WRAP)
                (do (.wrapFrom this no-bytes)
                    (when (.flushNet this) (recur)))
                (or (identical? hs SSLEngineResult$HandshakeStatus/NEED_UNWRAP)
                    (identical? hs SSLEngineResult$HandshakeStatus/NEED_UNWRAP_AGAIN))
                (when (.unwrapOnce this) (recur))
                (and (some? out) (.hasRemaining out))
                (do (.wrapFrom this out)
                    (when-not (.hasRemaining out) (set! out nil))
                    (when (.flushNet this) (recur)))
                :else
                (when (.unwrapOnce this) (recur)))))))))

  (flushNet [_]
    ;; Writes the TLS records waiting in net-out; false while the socket takes no more (OP_WRITE then wakes
    ;; the loop).
    (when (pos? (.position net-out))
      (.flip net-out)
      (.write ch net-out)
      (.compact net-out))
    (let [flushed (zero? (.position net-out))]
      (interest! key (if flushed SelectionKey/OP_READ (bit-or SelectionKey/OP_READ SelectionKey/OP_WRITE)))
      flushed))

  (wrapFrom [this src]
    (let [result (.wrap engine src net-out)
          status (.getStatus result)]
      (cond
        (identical? status SSLEngineResult$Status/BUFFER_OVERFLOW)
        (set! net-out (grow net-out (+ (.position net-out) (.getPacketBufferSize (.getSession engine)))))
        (identical? status SSLEngineResult$Status/CLOSED)
        (.close this "TLS closed"))))

  (unwrapOnce [this]
    ;; One unwrap of what net-in holds into `in`, parsed at once; false when it needs more bytes from the
    ;; network.
    (.flip net-in)
    (let [result (.unwrap engine net-in in)
          status (.getStatus result)]
      (.compact net-in)
      (cond
        (identical? status SSLEngineResult$Status/OK)
        (let [produced (.bytesProduced result)
              hs (.getHandshakeStatus result)]
          (when (pos? produced) (.parse this))
          (or (pos? (.bytesConsumed result)) (pos? produced)
              (not (or (identical? hs SSLEngineResult$HandshakeStatus/NEED_UNWRAP)
                       (identical? hs SSLEngineResult$HandshakeStatus/NOT_HANDSHAKING)))))
        (identical? status SSLEngineResult$Status/BUFFER_UNDERFLOW)
        (do (when-not (.hasRemaining net-in)
              (set! net-in (grow net-in (+ (.capacity net-in) (.getPacketBufferSize (.getSession engine))))))
            false)
        (identical? status SSLEngineResult$Status/BUFFER_OVERFLOW)
        (do (.parse this)
            (when (< (.remaining in) (.getApplicationBufferSize (.getSession engine)))
              (set! in (grow in (+ (.position in) (.getApplicationBufferSize (.getSession engine))))))
            (not closed))
        :else
        (do (.eof this) false))))

  (parse [this]
    (.flip in)
    (loop []
      (when (and (some? req) (not closed) (.hasRemaining in))
        (set! answering true)
        (condp == phase
          HEAD
          (let [end (index-of-head-end in)]
            (if (neg? end)
              (when (>= (.remaining in) max-head-bytes) (.close this "a response head over 1 MiB"))
              (let [text (byte-array (- end (.position in)))
                    _ (.get in text)
                    h (parse-head (String. text StandardCharsets/ISO_8859_1))
                    status (long (:status h))]
                (set! head h)
                (set! body-length 0)
                (cond
                  (< status 200) nil                                   ; 1xx: the real head follows
                  (or (== status 204) (== status 304)) (do (set! body (byte-array 0)) (.done this))
                  (:chunked h) (do (set! body (byte-array 16384)) (set! phase CHUNK-SIZE))
                  (:length h) (do (set! remaining (long (:length h)))
                                  (set! body (byte-array remaining))
                                  (set! phase BODY)
                                  (when (zero? remaining) (.done this)))
                  :else (do (set! body (byte-array 16384)) (set! phase UNTIL-CLOSE)))
                (recur))))
          BODY
          (let [n (min remaining (.remaining in))]
            (.get in body (int body-length) (int n))
            (set! body-length (+ body-length n))
            (set! remaining (- remaining n))
            (when (zero? remaining) (.done this))
            (recur))
          CHUNK-SIZE
          (let [end (index-of-crlf in)]
            (when-not (neg? end)
              (let [line (byte-array (- end (.position in)))
                    _ (.get in line)
                    _ (.position in (int (+ end 2)))
                    text (.trim (String. line StandardCharsets/ISO_8859_1))
                    semicolon (.indexOf text ";")
                    size (Long/parseLong (if (neg? semicolon) text (.trim (.substring text 0 semicolon))) 16)]
                (if (zero? size)
                  (set! phase TRAILERS)
                  (do (when (< (alength body) (+ body-length size))
                        (set! body (Arrays/copyOf body (int (max (+ body-length size) (* 2 (alength body)))))))
                      (set! remaining size)
                      (set! phase CHUNK-DATA)))
                (recur))))
          CHUNK-DATA
          (let [n (min remaining (.remaining in))]
            (.get in body (int body-length) (int n))
            (set! body-length (+ body-length n))
            (set! remaining (- remaining n))
            (when (zero? remaining) (set! phase CHUNK-END))
            (recur))
          CHUNK-END
          (when (>= (.remaining in) 2)
            (.position in (+ (.position in) 2))
            (set! phase CHUNK-SIZE)
            (recur))
          TRAILERS
          (let [end (index-of-crlf in)]
            (when-not (neg? end)
              (let [empty-line (== end (.position in))]
                (.position in (int (+ end 2)))
                (when empty-line (.done this))
                (recur))))
          UNTIL-CLOSE
          (let [n (.remaining in)]
            (when (< (alength body) (+ body-length n))
              (set! body (Arrays/copyOf body (int (max (+ body-length n) (* 2 (alength body)))))))
            (.get in body (int body-length) (int n))
            (set! body-length (+ body-length n))
            (recur)))))
    (.compact in)
    nil)

  (done [this]
    ;; The response is whole: the connection goes back to the pool (or closes), then the response goes to the
    ;; callback pool, or a redirect is sent again.
    (let [r req
          h head
          until-close (== phase UNTIL-CLOSE)
          whole (if (== body-length (alength body)) body (Arrays/copyOf body (int body-length)))
          status (long (:status h))]
      (set! req nil)
      (set! head nil)
      (set! body nil)
      (set! phase IDLE)
      (set! reused true)
      (set! idle-since (System/nanoTime))
      (if (or until-close (:close h))
        (.close this "closed after its response")
        (.release owner this))
      (if (and (redirect? status) (:location h) (< (long (:redirects r)) max-redirects))
        (.resend owner (->Request (redirect-target (:target r) (:location h)) (:promise r) (:deadline r)
                                  (inc (long (:redirects r))) false))
        (.finish owner r {:status status :body whole}))))

  (eof [this]
    (if (and (some? req) (== phase UNTIL-CLOSE))
      (.done this)
      (.close this "the server closed the connection"))))

;; ------------------------------------------------------------------------------------------------ client

(defn- daemon-threads ^ThreadFactory [^String prefix]
  (let [count (AtomicLong.)]
    (reify ThreadFactory
      (newThread [_ runnable]
        (doto (Thread. runnable (str prefix (.incrementAndGet count)))
          (.setDaemon true))))))

;; Callbacks run on one pool of a thread per CPU, shared by every client of the process (http-kit's default
;; worker pool is one per process too).
(defonce ^:private ^ExecutorService callbacks
  (Executors/newFixedThreadPool (.availableProcessors (Runtime/getRuntime)) (daemon-threads "callback-")))

(declare dispatch)

(deftype Client [^Selector selector ^ConcurrentLinkedQueue queue ^HashMap pool ^HashSet conns
                 ^SSLContext ssl insecure ^AtomicLong opened ^java.util.concurrent.atomic.AtomicBoolean running]
  Owner
  (release [_ conn]
    (let [^ArrayDeque idle (or (.get pool (.-pool-key ^Conn conn))
                               (let [d (ArrayDeque.)] (.put pool (.-pool-key ^Conn conn) d) d))]
      (.addFirst idle conn)))
  (forget [_ conn]
    (.remove conns conn)
    (when-let [idle ^ArrayDeque (.get pool (.-pool-key ^Conn conn))]
      (.removeFirstOccurrence idle conn)))
  (finish [_ request response]
    (let [p (:promise request)]
      (.execute callbacks ^Runnable (fn [] (deliver p response)))))
  (fail [_ request why]
    (let [p (:promise request)]
      (.execute callbacks ^Runnable (fn [] (deliver p {:error why})))))
  (resend [_ request]
    ;; Drained by the loop after the ready keys: never inside another connection's step.
    (.add queue request)))

(defn- new-engine ^SSLEngine [^Client client ^Target target]
  (let [engine (.createSSLEngine ^SSLContext (.-ssl client) ^String (.host target) (int (.port target)))
        params ^SSLParameters (.getSSLParameters engine)]
    (.setUseClientMode engine true)
    (when-not (.-insecure client)
      (.setEndpointIdentificationAlgorithm params "HTTPS"))
    (.setSSLParameters engine params)
    engine))

(defn- connect [^Client client ^Target target request]
  ;; A non-blocking connect with TCP_NODELAY; the request waits on the connection until it is up.
  (let [ch (SocketChannel/open)]
    (try
      (.configureBlocking ch false)
      (.setOption ch StandardSocketOptions/TCP_NODELAY true)
      (let [up (.connect ch (InetSocketAddress. ^String (.host target) (int (.port target))))
            key (.register ch ^Selector (.-selector client) (if up SelectionKey/OP_READ SelectionKey/OP_CONNECT))
            engine (when (= "https" (.scheme target)) (new-engine client target))
            session (when engine (.getSession engine))
            conn (Conn. client ch key (.pool-key target) engine
                        (when session (ByteBuffer/allocate (.getPacketBufferSize session)))
                        (when session (ByteBuffer/allocate (.getPacketBufferSize session)))
                        (ByteBuffer/allocate (if session (+ 1024 (.getApplicationBufferSize session)) 32768))
                        nil nil false false false false 0 IDLE nil 0 nil 0)]
        (.attach key conn)
        (.add ^HashSet (.-conns client) conn)
        (.incrementAndGet ^AtomicLong (.-opened client))
        (.send conn request)
        (when up (.connectable conn)))
      (catch java.io.IOException e
        (try (.close ch) (catch java.io.IOException _))
        (.fail client request (str "connect: " e))))))

(defn- take-idle
  "A kept connection to `target`'s scheme, host and port, or nil; ones idle past 120 s are closed."
  [^Client client ^Target target ^long now]
  (when-let [idle ^ArrayDeque (.get ^HashMap (.-pool client) (.pool-key target))]
    (loop []
      (when-let [conn ^Conn (.pollFirst idle)]
        (if (> (- now (.idleSince conn)) (long keep-alive-nanos))
          (do (.close conn "idle past its keep-alive") (recur))
          conn)))))

(defn- dispatch [^Client client request ^long now]
  (if (> now (long (:deadline request)))
    (.fail client request "timed out")
    (let [target ^Target (:target request)]
      ;; A request sent again because a kept connection failed under it goes on a new connection.
      (if-let [conn (when-not (:retried request) (take-idle client target now))]
        (.send ^Conn conn request)
        (connect client target request)))))

(defn- sweep [^Client client ^long now]
  ;; Requests past their deadline fail; kept connections idle past 120 s close.
  (doseq [^Conn conn (vec (.-conns client))]
    (if (.busy conn)
      (.expire conn now)
      (when (> (- now (.idleSince conn)) (long keep-alive-nanos))
        (.close conn "idle past its keep-alive")))))

(defn- step [^Conn conn ^SelectionKey key]
  (try
    (let [ops (.readyOps key)]
      (if (pos? (bit-and ops SelectionKey/OP_CONNECT))
        (.connectable conn)
        (do (when (pos? (bit-and ops SelectionKey/OP_WRITE)) (.writable conn))
            (when (and (.isValid key) (pos? (bit-and ops SelectionKey/OP_READ))) (.readable conn)))))
    (catch Exception e
      (.close conn (str e)))))

(defn- run-loop
  "The client's one selector thread: it owns every connection, drains the request queue, and stops when
  `running` goes false, closing every connection and failing what is still queued."
  [^Client client]
  (let [selector ^Selector (.-selector client)
        queue ^ConcurrentLinkedQueue (.-queue client)
        running ^java.util.concurrent.atomic.AtomicBoolean (.-running client)]
    (loop [next-sweep (+ (System/nanoTime) 100000000)]
      (when (.get running)
        (if (.isEmpty queue) (.select selector 100) (.selectNow selector))
        (let [keys (.iterator (.selectedKeys selector))]
          (while (.hasNext keys)
            (let [key ^SelectionKey (.next keys)]
              (.remove keys)
              (when (.isValid key) (step (.attachment key) key)))))
        (let [now (System/nanoTime)]
          (loop []
            (when-let [request (.poll queue)]
              (dispatch client request now)
              (recur)))
          (if (> now next-sweep)
            (do (sweep client now) (recur (+ now 100000000)))
            (recur next-sweep)))))
    (doseq [^Conn conn (vec (.-conns client))] (.close conn "the client closed"))
    (loop [] (when-let [request (.poll queue)] (.fail client request "the client closed") (recur)))
    (.close selector)))

(defn- trust-everything []
  (doto (SSLContext/getInstance "TLS")
    (.init nil
           (into-array [(reify X509TrustManager
                          (checkClientTrusted [_ _ _])
                          (checkServerTrusted [_ _ _])
                          (getAcceptedIssuers [_] (make-array X509Certificate 0)))])
           (SecureRandom.))))

(defn new-client
  "A client with its selector thread started. Each client has TLS contexts of its own, so a new client's
  connections do not resume an earlier one's TLS sessions."
  ^Client [insecure]
  (let [ssl (if insecure
              (trust-everything)
              (doto (SSLContext/getInstance "TLS") (.init nil nil nil)))
        client (Client. (Selector/open) (ConcurrentLinkedQueue.) (HashMap.) (HashSet.) ssl (boolean insecure)
                        (AtomicLong.) (java.util.concurrent.atomic.AtomicBoolean. true))
        thread (doto (Thread. ^Runnable (fn [] (run-loop client)) "client-loop") (.setDaemon true))]
    (.start thread)
    client))

(defn request
  "Queues a GET of `target` for the client's loop; returns a promise of {:status :body} or {:error why}."
  [^Client client ^Target target ^long timeout-nanos]
  (let [p (promise)]
    (.add ^ConcurrentLinkedQueue (.-queue client) (->Request target p (+ (System/nanoTime) timeout-nanos) 0 false))
    (.wakeup ^Selector (.-selector client))
    p))

(defn close-client [^Client client]
  (.set ^java.util.concurrent.atomic.AtomicBoolean (.-running client) false)
  (.wakeup ^Selector (.-selector client)))

(defn connections-opened ^long [^Client client] (.get ^AtomicLong (.-opened client)))

;; ------------------------------------------------------------------------------------------ command line

(def usage
  "usage: httpkit_design.clj -url URL [-n 500] [-reps 5] [-warmup 3] [-warmup_seconds 0] [-timeout SECONDS] [-reuse] [-insecure] | -version")

(defn- version-line []
  (format "Clojure %s on Java %s (%s)"
          (clojure-version) (System/getProperty "java.version") (System/getProperty "java.vm.name")))

(defn- usage-error [message]
  (binding [*out* *err*]
    (println (str program ": " message))
    (println usage))
  (System/exit 2))

(defn- number-of [flag value allow-zero]
  (let [n (try (Long/parseLong (str value)) (catch NumberFormatException _ nil))]
    (if (and n (or (pos? n) (and allow-zero (zero? n))))
      n
      (usage-error (str flag " wants a " (if allow-zero "non-negative" "positive") " integer, got " (pr-str value))))))

(def ^:private numeric-flags {"-n" [:n false] "-reps" [:reps false] "-warmup" [:warmup true] "-timeout" [:timeout false]
                                  "-warmup_seconds" [:warmup-seconds true]})

(defn- parse-args [args]
  (loop [args args
         options {:n 500 :reps 5 :warmup 3 :warmup-seconds 0 :timeout 60 :reuse false :insecure false}]
    (let [[flag value & more] args]
      (cond
        (empty? args) (if (:url options) options (usage-error "-url is required"))
        (= flag "-url") (if value
                          (do (try (target-of value)
                                   (catch IllegalArgumentException e (usage-error (str "-url: " (.getMessage e)))))
                              (recur more (assoc options :url value)))
                          (usage-error "-url needs a value"))
        (numeric-flags flag) (let [[key allow-zero] (numeric-flags flag)]
                               (recur more (assoc options key (number-of flag value allow-zero))))
        (= flag "-reuse") (recur (rest args) (assoc options :reuse true))
        (= flag "-insecure") (recur (rest args) (assoc options :insecure true))
        (#{"-h" "-help" "--help"} flag) (do (println usage) (System/exit 0))
        (= flag "-version") (do (println (version-line)) (System/exit 0))
        :else (usage-error (str "unknown flag " (pr-str flag)))))))

(defn- process-cpu-nanos
  "This process's CPU time so far, every thread (the JVM's own GC and compiler threads included), in
  nanoseconds; on Linux the JDK counts it in clock ticks (10 ms), so a repetition's figure is within 10 ms."
  ^long []
  (.getProcessCpuTime ^com.sun.management.OperatingSystemMXBean (ManagementFactory/getOperatingSystemMXBean)))

(defn- repetition
  "Fires n GETs at once, then derefs every promise; [ok errors bytes first-error]."
  [client target n ^long timeout-s]
  (let [timeout-nanos (* timeout-s 1000000000)
        promises (object-array n)]
    (dotimes [i n] (aset promises i (request client target timeout-nanos)))
    (reduce (fn [[ok errors bytes first-error] p]
              ;; The loop fails a request at its deadline; this bound only guards against a loop that died.
              (let [response (deref p (+ 5000 (* 1000 timeout-s)) {:error "no answer from the client's loop"})]
                (cond
                  (:error response) [ok (inc errors) bytes (or first-error (:error response))]
                  (= 200 (:status response)) [(inc ok) errors (+ bytes (alength ^bytes (:body response))) first-error]
                  :else [ok (inc errors) bytes (or first-error (str "status " (:status response)))])))
            [0 0 0 nil]
            promises)))

(defn -main [& args]
  (let [{:keys [url n reps warmup warmup-seconds timeout reuse insecure]} (parse-args args)
        target (target-of url)]
    (println (format "%s: %s, %d processors" program (version-line) (.availableProcessors (Runtime/getRuntime))))
    ;; No client outlives its bound, whatever the server does.
    (doto (Thread. ^Runnable (fn []
                               (Thread/sleep (* 1000 (+ warmup-seconds (* timeout (+ reps warmup 2)))))
                               (binding [*out* *err*] (println (str program ": the run outlasted its bound")))
                               (System/exit 1)))
      (.setDaemon true)
      (.start))
    (let [shared (when reuse (new-client insecure))
          failed (volatile! false)
          warm-until (+ (System/nanoTime) (* warmup-seconds 1000000000))]
      (loop [warmed 0 timed 0]
        (let [warming (or (< warmed warmup) (< (System/nanoTime) warm-until))
              client (or shared (new-client insecure))
              opened-before (connections-opened client)
              cpu-before (process-cpu-nanos)
              start (System/nanoTime)
              [ok errors bytes first-error] (repetition client target n timeout)
              wall (/ (- (System/nanoTime) start) 1e9)
              cpu (/ (- (process-cpu-nanos) cpu-before) 1e9)
              opened (- (connections-opened client) opened-before)
              label (if warming (str "warmup " (inc warmed)) (str "rep " (inc timed)))]
          (when-not shared (close-client client))
          (println (format "%s: %d ok, %d errors, %d bytes, wall %.3f s, cpu %.3f s, %d connections opened"
                           label ok errors bytes wall cpu opened))
          (when (pos? errors)
            (vreset! failed true)
            (binding [*out* *err*] (println (str program ": " label ": first error: " first-error))))
          (cond warming (recur (inc warmed) timed)
                (< (inc timed) reps) (recur warmed (inc timed))
                :else (println (format "requests made: %d" (* n (+ warmed reps)))))))
      (flush)
      (System/exit (if @failed 1 0)))))

(apply -main *command-line-args*)
