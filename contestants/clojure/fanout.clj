#!/usr/bin/env clojure
;; The JDK's own asynchronous java.net.http.HttpClient as a careful user configures it, for the "Clojure vs GoLang"
;; write-up's fan-out: -n GETs of -url fired at once with sendAsync, then all awaited, timed per repetition, after
;; -warmup untimed repetitions that let the JIT compile the path, more while -warmup_seconds have not passed (as
;; criterium warms up). The client speaks HTTP/1.1
;; (as http-kit does) and hands its work to a fixed executor of one thread per CPU the process may use, shared by
;; every client of the process and shut down at the end; -default-executor leaves the JDK's default (a cached
;; thread pool that a burst of 500 grows by hundreds of threads), as this program ran before. By default every
;; repetition has a client of its own (fresh connections); -reuse keeps one across them. JDK 17's HttpClient has
;; no close(): a client is dropped after its repetitions.
;;
;;   clojure fanout.clj -url http://127.0.0.1:9080/ -n 500 -reps 5 -warmup 3 [-reuse] [-insecure] [-timeout 60]
;;       [-default-executor]
;;     -> "rep 1: 500 ok, 0 errors, 12800000 bytes, wall 0.123 s, cpu 0.100 s, 3 client threads"
;;   (cpu: this process's CPU time during the repetition, every thread; client threads: the HttpClient's own
;;   threads and its executor's, alive at the repetition's end)
(ns fanout
  (:import (java.lang.management ManagementFactory)
           (java.net URI)
           (java.net.http HttpClient HttpClient$Version HttpRequest HttpResponse$BodyHandlers)
           (java.security SecureRandom)
           (java.security.cert X509Certificate)
           (java.time Duration)
           (java.util.concurrent CompletableFuture Executor ExecutorService Executors ThreadFactory)
           (java.util.concurrent.atomic AtomicLong)
           (javax.net.ssl SSLContext X509TrustManager)))

(def usage
  "usage: fanout.clj -url URL [-n 500] [-reps 5] [-warmup 3] [-warmup_seconds 0] [-timeout SECONDS] [-reuse] [-insecure] [-default-executor] | -version")

(defn- version-line []
  (format "Clojure %s on Java %s (%s)"
          (clojure-version) (System/getProperty "java.version") (System/getProperty "java.vm.name")))

(defn- usage-error [message]
  (binding [*out* *err*]
    (println (str "fanout.clj: " message))
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
         options {:n 500 :reps 5 :warmup 3 :warmup-seconds 0 :timeout 60 :reuse false :insecure false :default-executor false}]
    (let [[flag value & more] args]
      (cond
        (empty? args) (if (:url options) options (usage-error "-url is required"))
        (= flag "-url") (if value (recur more (assoc options :url value)) (usage-error "-url needs a value"))
        (numeric-flags flag) (let [[key allow-zero] (numeric-flags flag)]
                               (recur more (assoc options key (number-of flag value allow-zero))))
        (= flag "-reuse") (recur (rest args) (assoc options :reuse true))
        (= flag "-insecure") (recur (rest args) (assoc options :insecure true))
        (= flag "-default-executor") (recur (rest args) (assoc options :default-executor true))
        (#{"-h" "-help" "--help"} flag) (do (println usage) (System/exit 0))
        (= flag "-version") (do (println (version-line)) (System/exit 0))
        :else (usage-error (str "unknown flag " (pr-str flag)))))))

(defn- trust-everything []
  (doto (SSLContext/getInstance "TLS")
    (.init nil
           (into-array [(reify X509TrustManager
                          (checkClientTrusted [_ _ _])
                          (checkServerTrusted [_ _ _])
                          (getAcceptedIssuers [_] (make-array X509Certificate 0)))])
           (SecureRandom.))))

(def ^:private executor-prefix "fanout-executor-")

(defn- fixed-executor
  "One thread per CPU this process may use, named so that they can be counted."
  ^ExecutorService []
  (let [made (AtomicLong.)]
    (Executors/newFixedThreadPool
      (.availableProcessors (Runtime/getRuntime))
      (reify ThreadFactory
        (newThread [_ runnable]
          (doto (Thread. runnable (str executor-prefix (.incrementAndGet made)))
            (.setDaemon true)))))))

(defn- new-client [{:keys [insecure timeout]} ^Executor executor]
  (let [builder (-> (HttpClient/newBuilder)
                    (.version HttpClient$Version/HTTP_1_1)
                    (.connectTimeout (Duration/ofSeconds timeout)))
        builder (if executor (.executor builder executor) builder)]
    (.build (if insecure (.sslContext builder (trust-everything)) builder))))

(defn- client-threads
  "The live threads of the HTTP clients (their selector threads, and the default executor's workers) and of
  the fixed executor."
  []
  (count (filter (fn [^Thread t] (let [name (.getName t)]
                                   (or (.startsWith name "HttpClient-") (.startsWith name executor-prefix))))
                 (.keySet (Thread/getAllStackTraces)))))

(defn- process-cpu-nanos
  "This process's CPU time so far, every thread (the JVM's own GC and compiler threads included), in
  nanoseconds; on Linux the JDK counts it in clock ticks (10 ms), so a repetition's figure is within 10 ms."
  ^long []
  (.getProcessCpuTime ^com.sun.management.OperatingSystemMXBean (ManagementFactory/getOperatingSystemMXBean)))

(defn- repetition
  "Fires n GETs at once, then awaits them all; [ok errors bytes first-error]."
  [client request n]
  (let [futures (doall (repeatedly n #(.sendAsync client request (HttpResponse$BodyHandlers/ofByteArray))))]
    (reduce (fn [[ok errors bytes first-error] ^CompletableFuture f]
              (try
                (let [response (.get f)
                      body ^bytes (.body response)]
                  (if (= 200 (.statusCode response))
                    [(inc ok) errors (+ bytes (alength body)) first-error]
                    [ok (inc errors) bytes (or first-error (str "status " (.statusCode response)))]))
                (catch Exception e
                  [ok (inc errors) bytes (or first-error (str (.getCause e)))])))
            [0 0 0 nil]
            futures)))

(defn -main [& args]
  (let [{:keys [url n reps warmup warmup-seconds timeout reuse insecure default-executor] :as options}
        (parse-args args)]
    (when insecure
      ;; Read once when the HTTP client's classes load, so it is set before the first client is built.
      (System/setProperty "jdk.internal.httpclient.disableHostnameVerification" "true"))
    (println (format "fanout.clj: %s, %d processors, %s executor" (version-line)
                     (.availableProcessors (Runtime/getRuntime)) (if default-executor "the default" "a fixed")))
    ;; No client outlives its bound, whatever the server does.
    (doto (Thread. (fn []
                     (Thread/sleep (* 1000 (+ warmup-seconds (* timeout (+ reps warmup 2)))))
                     (binding [*out* *err*] (println "fanout.clj: the run outlasted its bound"))
                     (System/exit 1)))
      (.setDaemon true)
      (.start))
    (let [request (-> (HttpRequest/newBuilder (URI/create url)) (.timeout (Duration/ofSeconds timeout)) (.build))
          executor (when-not default-executor (fixed-executor))
          shared (when reuse (new-client options executor))
          failed (volatile! false)
          warm-until (+ (System/nanoTime) (* warmup-seconds 1000000000))]
      (loop [warmed 0 timed 0]
        (let [warming (or (< warmed warmup) (< (System/nanoTime) warm-until))
              client (or shared (new-client options executor))
              cpu-before (process-cpu-nanos)
              start (System/nanoTime)
              [ok errors bytes first-error] (repetition client request n)
              wall (/ (- (System/nanoTime) start) 1e9)
              cpu (/ (- (process-cpu-nanos) cpu-before) 1e9)
              label (if warming (str "warmup " (inc warmed)) (str "rep " (inc timed)))]
          (println (format "%s: %d ok, %d errors, %d bytes, wall %.3f s, cpu %.3f s, %d client threads"
                           label ok errors bytes wall cpu (client-threads)))
          (when (pos? errors)
            (vreset! failed true)
            (binding [*out* *err*] (println (str "fanout.clj: " label ": first error: " first-error))))
          (cond warming (recur (inc warmed) timed)
                (< (inc timed) reps) (recur warmed (inc timed))
                :else (println (format "requests made: %d" (* n (+ warmed reps)))))))
      (when executor (.shutdown executor))
      (flush)
      (System/exit (if @failed 1 0)))))

(apply -main *command-line-args*)
