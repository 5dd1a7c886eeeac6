// ThreadSanitizer settings for programs that use Debian's BoringSSL (linked into every binary and
// test that depends on //common:tls; compiled to nothing outside -fsanitize=thread builds).
//
// That BoringSSL is not built with ThreadSanitizer: its reference counts and locks are atomics TSan
// cannot see, while the memset/memcpy calls it makes are intercepted, so freeing an SSL_SESSION
// that another thread has just released looks like a race. ignore_noninstrumented_modules=1 makes
// interceptors called from uninstrumented libraries check nothing; all of our own code is still
// checked. The hook must live in the executable (libtsan's weak default wins over one in a shared
// library), hence linkstatic + alwayslink. TSAN_OPTIONS from the environment still apply on top of
// this.
#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_options() { return "ignore_noninstrumented_modules=1"; }
#endif
