/*
 * The access log and the human log.
 *
 * A request thread formats its access line on its own stack (the clock is
 * read through the vDSO and the calendar part of the timestamp is cached per
 * thread per second), then holds a mutex only long enough to copy the line
 * into the front of two 256 KiB buffers. A writer thread swaps the buffers
 * under the mutex and writes the full one with write(2) outside it, so a
 * request never waits for a write and never makes a system call here. The
 * writer wakes every 200 ms, or early when a line carries the front buffer
 * across its quarter mark (one wake per quarter, not one per request). A
 * line that does not fit is dropped and counted, and the next flush starts
 * with {"dropped_log_lines":N}, so lines written plus lines reported dropped
 * always equals lines logged.
 *
 * log_info() and log_error() are for start-up, shutdown and failures: one
 * formatted line straight to standard error.
 */
#include "util/log.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/decimal.h"
#include "util/utf8.h"
#include "util/worker.h"

#define LOG_BUFFER_BYTES (256u * 1024u)
#define LOG_FLUSH_MARK (LOG_BUFFER_BYTES / 4)
#define LOG_FLUSH_INTERVAL_NS 200000000L
#define LOG_PATH_MAX 256       /* bytes of the path that are logged */
#define LOG_QUERY_MAX 256      /* bytes of the query that are logged */
#define LOG_CLIENT_MAX 64      /* bytes of the client's address that are logged */
#define LOG_REQUEST_ID_MAX 128 /* bytes of the request id that are logged */
#define LOG_METHOD_MAX 32      /* bytes of the method that are logged */
#define LOG_REASON_MAX 16      /* bytes of why a request was interrupted */
#define LOG_ESCAPED_MAX 6      /* one input byte becomes at most "\u00XX" */
#define LOG_LINE_MAX 8192      /* fits every string at its worst plus the rest */
#define LOG_HUMAN_LINE_MAX 1024

_Static_assert((LOG_PATH_MAX + LOG_QUERY_MAX + LOG_CLIENT_MAX + LOG_REQUEST_ID_MAX +
                LOG_METHOD_MAX + LOG_REASON_MAX) *
                           LOG_ESCAPED_MAX +
                       250 <
                   LOG_LINE_MAX,
               "an access line always fits its buffer");

static char buffers[2][LOG_BUFFER_BYTES];

/* Everything below `lock` is guarded by it. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool running;  /* log_access() appends only while set */
    bool stopping; /* the writer flushes once more and exits */
    char *front;   /* the buffer requests append to */
    size_t used;
    uint64_t dropped; /* lines lost since the last flush */
} shared = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Owned by the thread that calls log_start() and log_stop(). */
static struct worker *writer;
static int output_fd = -1;

/* A lock-free early exit for a disabled log. */
static atomic_bool access_enabled;

/* ---- formatting ------------------------------------------------------- */

/* Printable ASCII other than the two that JSON escapes; NUL is not. */
static bool is_plain_ascii(unsigned char c)
{
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

static char *escape_ascii(char *out, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    const char *named = NULL;
    switch (c) {
    case '"':
        named = "\\\"";
        break;
    case '\\':
        named = "\\\\";
        break;
    case '\n':
        named = "\\n";
        break;
    case '\r':
        named = "\\r";
        break;
    case '\t':
        named = "\\t";
        break;
    default:
        break;
    }
    if (named != NULL) {
        memcpy(out, named, 2);
        return out + 2;
    }
    if (c >= 0x20 && c != 0x7f) {
        *out = (char)c;
        return out + 1;
    }
    memcpy(out, "\\u00", 4);
    out[4] = hex[c >> 4];
    out[5] = hex[c & 0xf];
    return out + 6;
}

/* Writes at most `limit` bytes of `text` JSON-escaped at `out` (which has
 * room for LOG_ESCAPED_MAX * limit bytes) and returns the new end. Valid
 * UTF-8 is kept; each byte of anything else becomes \ufffd. The cut never
 * splits a valid character. */
static char *escape_json(char *out, const char *text, size_t limit)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < limit && s[i] != '\0') {
        /* Runs of bytes that need no escape (ids, addresses, most paths)
         * are copied whole: byte by byte, this was most of a line's cost. */
        size_t plain = i;
        while (plain < limit && is_plain_ascii(s[plain]))
            plain++;
        if (plain > i) {
            memcpy(out, s + i, plain - i);
            out += plain - i;
            i = plain;
            continue;
        }
        if (s[i] < 0x80) {
            out = escape_ascii(out, s[i++]);
            continue;
        }
        size_t length = utf8_sequence_length(s + i);
        if (length == 0) {
            memcpy(out, "\\ufffd", 6);
            out += 6;
            i++;
        } else if (i + length > limit) {
            break;
        } else {
            memcpy(out, s + i, length);
            out += length;
            i += length;
        }
    }
    return out;
}

/* "2026-11-30T17:51:19.123Z" at `out` (32 bytes); returns its length. The
 * part up to the seconds is recomputed once a second per thread, since
 * gmtime_r() takes a process-wide lock. */
static size_t format_timestamp(char out[32])
{
    static _Thread_local time_t cached_second = (time_t)-1;
    static _Thread_local char cached_text[32];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (now.tv_sec != cached_second) {
        struct tm tm;
        if (gmtime_r(&now.tv_sec, &tm) == NULL ||
            strftime(cached_text, sizeof cached_text, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
            cached_text[0] = '\0'; /* not for any real clock */
        cached_second = now.tv_sec;
    }
    /* The milliseconds by hand: printf was most of a line's cost. */
    size_t length = strnlen(cached_text, 23);
    memcpy(out, cached_text, length);
    int milliseconds = (int)(now.tv_nsec / 1000000);
    out[length++] = '.';
    out[length++] = (char)('0' + milliseconds / 100);
    out[length++] = (char)('0' + milliseconds / 10 % 10);
    out[length++] = (char)('0' + milliseconds % 10);
    out[length++] = 'Z';
    out[length] = '\0';
    return length;
}

/* Decimal digits of `value` at `out`; returns the end. */
static char *append_unsigned(char *out, uint64_t value)
{
    char digits[DECIMAL_DIGITS_SIZE];
    size_t first = decimal_format(value, digits);
    memcpy(out, digits + first, DECIMAL_DIGITS_SIZE - first);
    return out + (DECIMAL_DIGITS_SIZE - first);
}

static char *append_literal(char *out, const char *text)
{
    size_t length = strlen(text);
    memcpy(out, text, length);
    return out + length;
}

/* `,"name":"text"` with `text` escaped and cut at `limit` bytes; nothing
 * when `text` is NULL or empty. Returns the new end. */
static char *append_optional_member(char *out, const char *name, const char *text, size_t limit)
{
    if (text == NULL || text[0] == '\0')
        return out;
    out = append_literal(out, name);
    out = escape_json(out, text, limit);
    *out++ = '"';
    return out;
}

/* The whole access line, newline included, at `line`; returns its length. */
static size_t format_access_line(char line[LOG_LINE_MAX], const struct access_entry *entry)
{
    char *out = append_literal(line, "{\"ts\":\"");
    out += format_timestamp(out);
    *out++ = '"';
    out = append_optional_member(out, ",\"request_id\":\"", entry->request_id, LOG_REQUEST_ID_MAX);
    out = append_optional_member(out, ",\"client\":\"", entry->client, LOG_CLIENT_MAX);
    out = append_optional_member(out, ",\"method\":\"", entry->method, LOG_METHOD_MAX);
    out = append_literal(out, ",\"path\":\"");
    out = escape_json(out, entry->path != NULL ? entry->path : "", LOG_PATH_MAX);
    *out++ = '"';
    out = append_optional_member(out, ",\"query\":\"", entry->query, LOG_QUERY_MAX);
    /* Room is certain: every string is cut to its maximum, and the rest is
     * at most 3 numbers of 20 digits and ~130 bytes of member names. */
    out = append_literal(out, ",\"status\":");
    out = append_unsigned(out, entry->status);
    out = append_literal(out, ",\"bytes\":");
    out = append_unsigned(out, entry->bytes);
    out = append_literal(out, ",\"us\":");
    uint64_t magnitude = (uint64_t)entry->microseconds;
    if (entry->microseconds < 0) { /* the monotonic clock does not go back; defensive */
        *out++ = '-';
        magnitude = (uint64_t)0 - magnitude; /* INT64_MIN included */
    }
    out = append_unsigned(out, magnitude);
    out = append_optional_member(out, ",\"interrupted\":\"", entry->interrupted, LOG_REASON_MAX);
    out = append_literal(out, "}\n");
    return (size_t)(out - line);
}

/* ---- the shared buffer ---------------------------------------------- */

static void append_line(const char *line, size_t length)
{
    pthread_mutex_lock(&shared.lock);
    if (!shared.running) {
        /* log_stop() has begun: the line would never be written. */
    } else if (length > LOG_BUFFER_BYTES - shared.used) {
        shared.dropped++;
    } else {
        bool below_mark = shared.used < LOG_FLUSH_MARK;
        memcpy(shared.front + shared.used, line, length);
        shared.used += length;
        if (below_mark && shared.used >= LOG_FLUSH_MARK)
            pthread_cond_signal(&shared.wake);
    }
    pthread_mutex_unlock(&shared.lock);
}

/* Formats the line on this thread's stack and appends it to the buffer
 * without a system call; drops and counts it when the buffer is full. A
 * no-op when the log is disabled or stopped. */
void log_access(const struct access_entry *entry)
{
    if (!atomic_load_explicit(&access_enabled, memory_order_relaxed))
        return;
    char line[LOG_LINE_MAX];
    size_t length = format_access_line(line, entry);
    append_line(line, length);
}

/* ---- the writer thread ---------------------------------------------- */

static void wait_writable(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    (void)poll(&pfd, 1, 1000);
}

/* Writes all of `data` unless the descriptor fails; returns the number of
 * bytes that could not be written. */
static size_t write_all(int fd, const char *data, size_t length)
{
    size_t done = 0;
    while (done < length) {
        ssize_t written = write(fd, data + done, length - done);
        if (written > 0)
            done += (size_t)written;
        else if (written < 0 && errno == EINTR)
            continue;
        else if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            wait_writable(fd);
        else
            break;
    }
    return length - done;
}

static uint64_t count_lines(const char *data, size_t length)
{
    uint64_t lines = 0;
    const char *end = data + length;
    for (const char *p = data; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        lines++;
    return lines;
}

/* The access log's descriptor fails (a closed pipe, a full disk): said
 * once on standard error when it starts failing, and once when it works
 * again; meanwhile lost lines are counted as dropped. */
static bool output_failing; /* the writer thread's own; reset by log_start() */

static void note_write_outcome(bool failed, int error)
{
    bool failing = output_failing;
    if (failed && !failing)
        log_error("access log: cannot write (%s); lines are dropped and counted until it can",
                  strerror(error));
    else if (!failed && failing)
        log_info("access log: writing again");
    output_failing = failed;
}

/* Writes the drop report, then the lines; returns how many lines were lost
 * to a failing descriptor, those of a drop report it could not write
 * included, so that the next report still counts them. */
static uint64_t flush_lines(const char *data, size_t length, uint64_t dropped)
{
    size_t note_unwritten = 0;
    if (dropped > 0) {
        char note[64];
        int note_length = snprintf(note, sizeof note, "{\"dropped_log_lines\":%llu}\n",
                                   (unsigned long long)dropped);
        note_unwritten = write_all(output_fd, note, (size_t)note_length);
    }
    int error = errno;
    size_t unwritten = length > 0 ? write_all(output_fd, data, length) : 0;
    if (unwritten > 0)
        error = errno;
    note_write_outcome(note_unwritten > 0 || unwritten > 0, error);
    return (note_unwritten > 0 ? dropped : 0) + count_lines(data + (length - unwritten), unwritten);
}

/* Sleeps until a line crosses the quarter mark, log_stop(), or 200 ms. */
static void wait_for_lines(void)
{
    struct timespec deadline = clock_after(CLOCK_MONOTONIC, LOG_FLUSH_INTERVAL_NS);
    pthread_cond_timedwait(&shared.wake, &shared.lock, &deadline);
}

static void writer_main(struct worker *worker, void *unused)
{
    (void)worker; /* it stops on shared.stopping, set under the lock */
    (void)unused;
    uint64_t lost = 0;
    pthread_mutex_lock(&shared.lock);
    for (;;) {
        shared.dropped += lost;
        if (!shared.stopping && shared.used < LOG_FLUSH_MARK)
            wait_for_lines();
        char *data = shared.front;
        size_t length = shared.used;
        uint64_t dropped = shared.dropped;
        shared.front = data == buffers[0] ? buffers[1] : buffers[0];
        shared.used = 0;
        shared.dropped = 0;
        bool last = shared.stopping;
        pthread_mutex_unlock(&shared.lock);
        lost = length > 0 || dropped > 0 ? flush_lines(data, length, dropped) : 0;
        if (last)
            return;
        pthread_mutex_lock(&shared.lock);
    }
}

static int init_wake(void)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(&shared.wake, &attr);
    pthread_condattr_destroy(&attr);
    return rc == 0 ? 0 : -1;
}

/* The writer's waker: no more lines are taken, and the writer flushes
 * once more and returns. */
static void stop_writer(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&shared.lock);
    shared.running = false;
    shared.stopping = true;
    pthread_cond_signal(&shared.wake);
    pthread_mutex_unlock(&shared.lock);
}

/* Starts the writer thread, which writes access lines to `access_fd` (still
 * owned by the caller, who closes it after log_stop()). With
 * `access_enabled` 0 no thread starts and log_access() does nothing.
 * Returns 0, or -1 when the thread cannot start or the log is already
 * started. */
int log_start(int access_fd, int enable_access)
{
    if (writer != NULL)
        return -1;
    if (!enable_access)
        return 0;
    if (init_wake() != 0)
        return -1;
    pthread_mutex_lock(&shared.lock);
    shared.front = buffers[0];
    shared.used = 0;
    shared.dropped = 0;
    shared.stopping = false;
    shared.running = true;
    pthread_mutex_unlock(&shared.lock);
    output_fd = access_fd;
    output_failing = false;
    writer = worker_start_woken("gq-log", writer_main, stop_writer, NULL);
    if (writer == NULL) {
        pthread_mutex_lock(&shared.lock);
        shared.running = false;
        pthread_mutex_unlock(&shared.lock);
        pthread_cond_destroy(&shared.wake);
        return -1;
    }
    atomic_store(&access_enabled, true);
    return 0;
}

/* Stops taking lines, writes what is buffered (and the drop count), and
 * joins the writer. A no-op when the writer is not running. */
void log_stop(void)
{
    if (writer == NULL)
        return;
    atomic_store(&access_enabled, false);
    worker_stop(writer);
    writer = NULL;
    pthread_cond_destroy(&shared.wake);
    output_fd = -1;
}

/* ---- human lines ---------------------------------------------------- */

/* Shows every control byte and every byte that is not well-formed UTF-8
 * as '?': a message may quote what a client sent (a path), which must
 * neither break the line nor reach a terminal as an escape sequence. */
static void make_printable(char *text)
{
    utf8_repair(text);
    for (unsigned char *p = (unsigned char *)text; *p != '\0'; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* One write of "gpuquote: <level>: <message>\n", so concurrent lines do not
 * interleave; a message longer than the line is cut. */
static void __attribute__((format(printf, 2, 0)))
log_human(const char *level, const char *format, va_list args)
{
    char line[LOG_HUMAN_LINE_MAX];
    int prefix = snprintf(line, sizeof line, "gpuquote: %s: ", level);
    size_t used = prefix > 0 ? (size_t)prefix : 0;
    size_t room = sizeof line - used; /* the newline takes the NUL's place */
    int body = vsnprintf(line + used, room, format, args);
    if (body > 0)
        used += (size_t)body < room ? (size_t)body : room - 1;
    line[used] = '\0';
    make_printable(line);
    line[used++] = '\n';
    fwrite(line, 1, used, stderr);
}

/* "gpuquote: info: <message>" on standard error. */
void log_info(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    log_human("info", format, args);
    va_end(args);
}

/* "gpuquote: warning: <message>" on standard error: served, but worth a
 * look. */
void log_warning(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    log_human("warning", format, args);
    va_end(args);
}

/* "gpuquote: error: <message>" on standard error. */
void log_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    log_human("error", format, args);
    va_end(args);
}
