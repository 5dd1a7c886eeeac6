#!/usr/bin/env racket
#lang racket/base
;; The Racket echo server of the "Racket vs Go" write-up, as the write-up describes it: a Racket (green) thread
;; per client, each client's ports under a custodian of its own that is shut down when the client goes, and the
;; client threads ended with break-thread when the server stops (SIGINT or SIGTERM, which Racket delivers to
;; the main thread as a break).
;;
;;   racket echo_server.rkt --host 127.0.0.1 --port 7000     ; port 0: a free one, printed in "listening on"
(require racket/cmdline racket/tcp)

(define host "127.0.0.1")
(define port 7000)
(define buffer-size 4096)

(command-line
 #:program "echo_server.rkt"
 #:once-each
 [("--host") h "address to listen on (default 127.0.0.1)" (set! host h)]
 [("--port") p "port to listen on, 0 for a free one (default 7000)"
  (let ([n (string->number p)])
    (unless (and (exact-nonnegative-integer? n) (< n 65536))
      (raise-user-error 'echo_server.rkt "--port wants 0..65535, got ~s" p))
    (set! port n))])

;; Echoes until the client closes; flushes after every read, as an echo must.
(define (echo in out)
  (define buffer (make-bytes buffer-size))
  (let loop ()
    (define n (read-bytes-avail! buffer in))
    (unless (eof-object? n)
      (write-bytes buffer out 0 n)
      (flush-output out)
      (loop))))

;; The client threads alive now, so that stopping the server can break each one.
(define clients (make-hash))

(define (serve listener)
  (let loop ()
    (define custodian (make-custodian))
    (parameterize ([current-custodian custodian])
      (define-values (in out) (tcp-accept listener))
      (define client
        (thread
         (lambda ()
           ;; A reset peer or a break ends the echo alike; either way the custodian takes the ports.
           (with-handlers ([exn:break? void] [exn:fail:network? void])
             (echo in out))
           (hash-remove! clients (current-thread))
           (custodian-shutdown-all custodian))))
      (hash-set! clients client #t))
    (loop)))

(define listener (tcp-listen port 4096 #t host))
(define-values (_local-host bound-port _remote-host _remote-port) (tcp-addresses listener #t))
(printf "echo_server.rkt: Racket ~a (~a)\n" (version) (system-type 'vm))
(printf "listening on ~a:~a\n" host bound-port)
(flush-output)
(with-handlers ([exn:break? (lambda (_)
                              (for ([client (in-list (hash-keys clients))])
                                (break-thread client))
                              (tcp-close listener))])
  (serve listener))
