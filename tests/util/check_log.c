/*
 * Tests of the access log and the human log: the exact line, JSON escaping
 * and UTF-8 repair, the path and method cuts, the timer flush, lines from
 * many threads (none lost without being counted), forced drops reported as
 * {"dropped_log_lines":N}, the disabled log, and log_info()/log_error() on
 * standard error.
 *
 * Output goes to an unlinked temporary file (or a pipe, where a writer must
 * block) and is read back after log_stop().
 */
#include "util/log.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------- */

static int temp_fd(void)
{
    char path[] = "/tmp/gq-check-log-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(unlink(path), 0);
    return fd;
}

/* Everything `fd` holds or delivers until end of file, NUL-terminated. */
static char *read_all(int fd, size_t *length_out)
{
    size_t capacity = 1 << 16, length = 0;
    char *data = malloc(capacity);
    ck_assert_ptr_nonnull(data);
    for (;;) {
        if (capacity - length < 4096) {
            capacity *= 2;
            data = realloc(data, capacity);
            ck_assert_ptr_nonnull(data);
        }
        ssize_t n = read(fd, data + length, capacity - length - 1);
        if (n < 0 && errno == EINTR)
            continue;
        ck_assert_int_ge(n, 0);
        if (n == 0)
            break;
        length += (size_t)n;
    }
    data[length] = '\0';
    if (length_out != NULL)
        *length_out = length;
    return data;
}

static char *read_file(int fd)
{
    ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
    return read_all(fd, NULL);
}

/* Logs `entry` alone to a fresh file and returns what was written. */
static char *log_one_entry(const struct access_entry *entry)
{
    int fd = temp_fd();
    ck_assert_int_eq(log_start(fd, 1), 0);
    log_access(entry);
    log_stop();
    char *text = read_file(fd);
    close(fd);
    return text;
}

/* Logs a request with no client address and no query. */
static void log_request(const char *method, const char *path, unsigned status, uint64_t bytes,
                        int64_t us)
{
    struct access_entry entry = {.method = method, .path = path, .status = status,
                                 .bytes = bytes, .microseconds = us};
    log_access(&entry);
}

/* Logs one line of a request that was interrupted for `reason` (NULL: it
 * completed) to a fresh file and returns what was written. */
static char *log_one_interrupted(const char *method, const char *path, unsigned status,
                                 uint64_t bytes, int64_t us, const char *reason)
{
    struct access_entry entry = {.method = method, .path = path, .status = status,
                                 .bytes = bytes, .microseconds = us, .interrupted = reason};
    return log_one_entry(&entry);
}

/* Logs one line of a completed request to a fresh file and returns what
 * was written. */
static char *log_one(const char *method, const char *path, unsigned status, uint64_t bytes,
                     int64_t us)
{
    return log_one_interrupted(method, path, status, bytes, us, NULL);
}

/* The line as an object, checking it is one JSON line. */
static json_t *parse_line(const char *text)
{
    size_t length = strlen(text);
    ck_assert_uint_gt(length, 0);
    ck_assert_int_eq(text[length - 1], '\n');
    ck_assert_ptr_eq(strchr(text, '\n'), text + length - 1);
    json_error_t jerr;
    json_t *line = json_loads(text, 0, &jerr);
    ck_assert_msg(line != NULL, "not JSON (%s): %s", jerr.text, text);
    ck_assert(json_is_object(line));
    return line;
}

static const char *string_field(json_t *line, const char *key)
{
    json_t *value = json_object_get(line, key);
    ck_assert_msg(json_is_string(value), "%s is not a string", key);
    return json_string_value(value);
}

/* ---- the line ------------------------------------------------------- */

static time_t realtime_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return now.tv_sec;
}

START_TEST(test_line_is_exact)
{
    /* The log reads CLOCK_REALTIME; time() reads a coarser clock that can
     * still show the last second when CLOCK_REALTIME has passed it. */
    time_t before = realtime_seconds();
    char *text = log_one("GET", "/catalog", 200, 1234, 57);
    time_t after = realtime_seconds();

    /* {"ts":"2026-11-30T17:51:19.123Z", ... */
    ck_assert_int_eq(strncmp(text, "{\"ts\":\"", 7), 0);
    char ts[25];
    memcpy(ts, text + 7, 24);
    ts[24] = '\0';
    char expected[256];
    snprintf(expected, sizeof expected,
             "{\"ts\":\"%s\",\"method\":\"GET\",\"path\":\"/catalog\",\"status\":200,"
             "\"bytes\":1234,\"us\":57}\n",
             ts);
    ck_assert_str_eq(text, expected);

    struct tm tm = {0};
    const char *rest = strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm);
    ck_assert_ptr_nonnull(rest);
    ck_assert(rest[0] == '.' && rest[1] >= '0' && rest[1] <= '9' && rest[2] >= '0' &&
              rest[2] <= '9' && rest[3] >= '0' && rest[3] <= '9');
    ck_assert_str_eq(rest + 4, "Z");
    time_t logged = timegm(&tm);
    ck_assert_int_ge(logged, before);
    ck_assert_int_le(logged, after);

    json_t *line = parse_line(text);
    ck_assert_uint_eq(json_object_size(line), 6);
    ck_assert_str_eq(string_field(line, "ts"), ts);
    ck_assert_str_eq(string_field(line, "method"), "GET");
    ck_assert_str_eq(string_field(line, "path"), "/catalog");
    ck_assert_int_eq(json_integer_value(json_object_get(line, "status")), 200);
    ck_assert_int_eq(json_integer_value(json_object_get(line, "bytes")), 1234);
    ck_assert_int_eq(json_integer_value(json_object_get(line, "us")), 57);
    json_decref(line);
    free(text);
}
END_TEST

static const struct number_case {
    unsigned status;
    uint64_t bytes;
    int64_t us;
    const char *tail;
} number_cases[] = {
    {0, 0, 0, "\"status\":0,\"bytes\":0,\"us\":0}\n"},
    {599, UINT64_MAX, INT64_MAX,
     "\"status\":599,\"bytes\":18446744073709551615,\"us\":9223372036854775807}\n"},
    {4294967295u, 1, -1, "\"status\":4294967295,\"bytes\":1,\"us\":-1}\n"},
    {304, 0, INT64_MIN, "\"status\":304,\"bytes\":0,\"us\":-9223372036854775808}\n"},
};

START_TEST(test_numbers_are_exact)
{
    const struct number_case *nc = &number_cases[_i];
    char *text = log_one("HEAD", "/", nc->status, nc->bytes, nc->us);
    const char *tail = strstr(text, "\"status\":");
    ck_assert_ptr_nonnull(tail);
    ck_assert_str_eq(tail, nc->tail);
    free(text);
}
END_TEST

/* `escaped` is what the line holds between the quotes; `decoded` what a
 * JSON parser gives back. */
static const struct escape_case {
    const char *path;
    const char *escaped;
    const char *decoded;
} escape_cases[] = {
    {"/a\"b", "/a\\\"b", "/a\"b"},
    {"/a\\b", "/a\\\\b", "/a\\b"},
    {"/x\ny\rz\t", "/x\\ny\\rz\\t", "/x\ny\rz\t"},
    {"\x01\x1f\x7f", "\\u0001\\u001f\\u007f", "\x01\x1f\x7f"},
    {"/caf\xc3\xa9", "/caf\xc3\xa9", "/caf\xc3\xa9"},
    {"/\xe2\x82\xac/\xf0\x9f\x98\x80", "/\xe2\x82\xac/\xf0\x9f\x98\x80",
     "/\xe2\x82\xac/\xf0\x9f\x98\x80"},
    {"/\xff", "/\\ufffd", "/\xef\xbf\xbd"},
    {"/\x80x", "/\\ufffdx", "/\xef\xbf\xbdx"},
    {"/\xc0\xaf", "/\\ufffd\\ufffd", "/\xef\xbf\xbd\xef\xbf\xbd"}, /* overlong '/' */
    {"/\xed\xa0\x80", "/\\ufffd\\ufffd\\ufffd",
     "/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* a surrogate */
    {"/\xf4\x90\x80\x80", "/\\ufffd\\ufffd\\ufffd\\ufffd",
     "/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},         /* past U+10FFFF */
    {"/\xe2\x82", "/\\ufffd\\ufffd", "/\xef\xbf\xbd\xef\xbf\xbd"}, /* cut short */
    {"/\xe2\x82x", "/\\ufffd\\ufffdx", "/\xef\xbf\xbd\xef\xbf\xbdx"},
    {"", "", ""},
};

START_TEST(test_path_escaping)
{
    const struct escape_case *ec = &escape_cases[_i];
    char *text = log_one("GET", ec->path, 200, 0, 0);
    char expected[256];
    snprintf(expected, sizeof expected, "\"path\":\"%s\",\"status\"", ec->escaped);
    ck_assert_msg(strstr(text, expected) != NULL, "%s lacks %s", text, expected);
    json_t *line = parse_line(text);
    ck_assert_str_eq(string_field(line, "path"), ec->decoded);
    json_decref(line);
    free(text);
}
END_TEST

/* A request that did not complete says why, after the numbers; the reason
 * is escaped and cut at 16 bytes. */
START_TEST(test_interrupted_request_says_why)
{
    char *text = log_one_interrupted("POST", "/quote", 201, 4953, 812, "client_abort");
    const char *members = strstr(text, ",\"method\"");
    ck_assert_ptr_nonnull(members);
    ck_assert_str_eq(members, ",\"method\":\"POST\",\"path\":\"/quote\",\"status\":201,"
                              "\"bytes\":4953,\"us\":812,\"interrupted\":\"client_abort\"}\n");
    free(text);

    char reason[80];
    memset(reason, 'r', sizeof reason - 1);
    reason[0] = '"';
    reason[sizeof reason - 1] = '\0';
    text = log_one_interrupted("GET", "/", 0, 0, 0, reason);
    json_t *line = parse_line(text);
    const char *logged = string_field(line, "interrupted");
    ck_assert_uint_eq(strlen(logged), 16);
    ck_assert_int_eq(logged[0], '"');
    ck_assert_int_eq(logged[15], 'r');
    json_decref(line);
    free(text);
}
END_TEST

/* The request id and the client's address come after the time, the query
 * after the path, each only when there is one. */
START_TEST(test_request_id_client_and_query_members)
{
    struct access_entry entry = {.request_id = "req_0193", .client = "203.0.113.7",
                                 .method = "GET", .path = "/catalog",
                                 .query = "gpu=V100&sort=price", .status = 200, .bytes = 1116,
                                 .microseconds = 41};
    char *text = log_one_entry(&entry);
    const char *members = strstr(text, "Z\",");
    ck_assert_ptr_nonnull(members);
    ck_assert_str_eq(members, "Z\",\"request_id\":\"req_0193\",\"client\":\"203.0.113.7\","
                              "\"method\":\"GET\",\"path\":\"/catalog\","
                              "\"query\":\"gpu=V100&sort=price\","
                              "\"status\":200,\"bytes\":1116,\"us\":41}\n");
    free(text);

    entry.request_id = NULL;
    entry.client = "";
    entry.query = "";
    text = log_one_entry(&entry);
    ck_assert_ptr_null(strstr(text, "request_id"));
    ck_assert_ptr_null(strstr(text, "client"));
    ck_assert_ptr_null(strstr(text, "query"));
    ck_assert_ptr_nonnull(strstr(text, "Z\",\"method\":\"GET\",\"path\":\"/catalog\",\"status\""));
    free(text);
}
END_TEST

/* The query is logged as sent (percent-escapes are not decoded), JSON-
 * escaped, with invalid UTF-8 repaired, and cut at 256 bytes. */
START_TEST(test_query_is_escaped_and_cut)
{
    struct access_entry entry = {.method = "GET", .path = "/catalog",
                                 .query = "gpu=%22V\"1\x01\xff&x", .status = 422};
    char *text = log_one_entry(&entry);
    ck_assert_ptr_nonnull(
        strstr(text, "\"query\":\"gpu=%22V\\\"1\\u0001\\ufffd&x\",\"status\":422"));
    json_t *line = parse_line(text);
    ck_assert_str_eq(string_field(line, "query"), "gpu=%22V\"1\x01\xef\xbf\xbd&x");
    json_decref(line);
    free(text);

    char query[400];
    memset(query, 'q', sizeof query - 1);
    query[sizeof query - 1] = '\0';
    entry.query = query;
    text = log_one_entry(&entry);
    line = parse_line(text);
    ck_assert_uint_eq(strlen(string_field(line, "query")), 256);
    json_decref(line);
    free(text);
}
END_TEST

START_TEST(test_method_is_escaped_and_null_path_is_empty)
{
    char *text = log_one("G\"T\n", NULL, 200, 0, 0);
    ck_assert_ptr_nonnull(strstr(text, "\"method\":\"G\\\"T\\n\",\"path\":\"\",\"status\""));
    json_t *line = parse_line(text);
    ck_assert_str_eq(string_field(line, "method"), "G\"T\n");
    ck_assert_str_eq(string_field(line, "path"), "");
    json_decref(line);
    free(text);
}
END_TEST

/* A request libmicrohttpd refused before the handler saw its method. */
START_TEST(test_unknown_method_is_left_out)
{
    char *text = log_one(NULL, "/catalog", 431, 0, 5);
    ck_assert_ptr_nonnull(strstr(text, "Z\",\"path\":\"/catalog\",\"status\":431,"));
    json_t *line = parse_line(text);
    ck_assert_ptr_null(json_object_get(line, "method"));
    json_decref(line);
    free(text);
}
END_TEST

/* A path of `prefix` bytes of 'a' followed by `suffix`, and what is logged:
 * `kept` bytes of 'a' followed by `kept_suffix`. */
static const struct cut_case {
    size_t prefix;
    const char *suffix;
    size_t kept;
    const char *kept_suffix;
} cut_cases[] = {
    {300, "", 256, ""},
    {256, "b", 256, ""},
    {255, "b", 255, "b"},
    {254, "\xc3\xa9", 254, "\xc3\xa9"}, /* é ends at byte 256 */
    {255, "\xc3\xa9", 255, ""},         /* é would cross it: cut before */
    {253, "\xf0\x9f\x98\x80", 253, ""}, /* so would an emoji */
    {255, "\xff", 255, "\xef\xbf\xbd"}, /* one bad byte is one byte */
};

START_TEST(test_path_is_cut_at_256_bytes)
{
    const struct cut_case *cc = &cut_cases[_i];
    char path[512], expected[512];
    memset(path, 'a', cc->prefix);
    strcpy(path + cc->prefix, cc->suffix);
    memset(expected, 'a', cc->kept);
    strcpy(expected + cc->kept, cc->kept_suffix);
    char *text = log_one("GET", path, 200, 0, 0);
    json_t *line = parse_line(text);
    ck_assert_str_eq(string_field(line, "path"), expected);
    json_decref(line);
    free(text);
}
END_TEST

START_TEST(test_method_is_cut_at_32_bytes)
{
    char method[41];
    memset(method, 'M', 40);
    method[40] = '\0';
    char *text = log_one(method, "/", 200, 0, 0);
    json_t *line = parse_line(text);
    ck_assert_str_eq(string_field(line, "method"), "MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM");
    json_decref(line);
    free(text);
}
END_TEST

/* ---- flushing, threads, drops --------------------------------------- */

START_TEST(test_timer_flushes_without_stop)
{
    int fd = temp_fd();
    ck_assert_int_eq(log_start(fd, 1), 0);
    log_request("GET", "/healthz", 200, 2, 3);
    off_t size = 0;
    for (int tries = 0; tries < 500 && size == 0; tries++) {
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
        size = lseek(fd, 0, SEEK_END);
    }
    char *text = read_file(fd);
    ck_assert_ptr_nonnull(strstr(text, "\"path\":\"/healthz\""));
    ck_assert_int_eq((off_t)strlen(text), size);
    log_stop();
    free(text);
    close(fd);
}
END_TEST

#define THREADS 4
#define LINES_PER_THREAD 10000

struct producer {
    pthread_t thread;
    int id;
    int lines;
    size_t path_bytes; /* padding that makes lines long */
};

static void *produce(void *arg)
{
    const struct producer *p = arg;
    char path[512];
    for (int seq = 0; seq < p->lines; seq++) {
        int n = snprintf(path, sizeof path, "/t/%d/%d/", p->id, seq);
        memset(path + n, 'x', p->path_bytes);
        path[(size_t)n + p->path_bytes] = '\0';
        log_request("POST", path, 201, (uint64_t)seq, seq);
    }
    return NULL;
}

struct tally {
    long lines;
    long dropped;
    long drop_reports;
    int next_seq[THREADS]; /* lowest sequence number still possible */
};

/* Checks every line of `text` and counts lines and reported drops; each
 * thread's lines must come in the order it logged them. */
static void tally_lines(char *text, struct tally *t)
{
    memset(t, 0, sizeof *t);
    for (char *line = text, *end; *line != '\0'; line = end + 1) {
        end = strchr(line, '\n');
        ck_assert_ptr_nonnull(end);
        char saved = end[1];
        end[1] = '\0';
        json_t *object = parse_line(line);
        end[1] = saved;
        json_t *dropped = json_object_get(object, "dropped_log_lines");
        if (dropped != NULL) {
            ck_assert_uint_eq(json_object_size(object), 1);
            ck_assert_int_gt(json_integer_value(dropped), 0);
            t->dropped += (long)json_integer_value(dropped);
            t->drop_reports++;
        } else {
            int id, seq;
            ck_assert_int_eq(sscanf(string_field(object, "path"), "/t/%d/%d/", &id, &seq), 2);
            ck_assert(id >= 0 && id < THREADS);
            ck_assert_int_ge(seq, t->next_seq[id]);
            ck_assert_int_eq(json_integer_value(json_object_get(object, "bytes")), seq);
            t->next_seq[id] = seq + 1;
            t->lines++;
        }
        json_decref(object);
    }
}

static void run_producers(int lines, size_t path_bytes)
{
    struct producer producers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        producers[i] = (struct producer){.id = i, .lines = lines, .path_bytes = path_bytes};
        ck_assert_int_eq(pthread_create(&producers[i].thread, NULL, produce, &producers[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_join(producers[i].thread, NULL), 0);
}

START_TEST(test_threads_lose_no_line_uncounted)
{
    int fd = temp_fd();
    ck_assert_int_eq(log_start(fd, 1), 0);
    run_producers(LINES_PER_THREAD, 0);
    log_stop();
    char *text = read_file(fd);
    struct tally t;
    tally_lines(text, &t);
    ck_assert_int_eq(t.lines + t.dropped, THREADS * LINES_PER_THREAD);
    if (t.dropped == 0) {
        for (int i = 0; i < THREADS; i++)
            ck_assert_int_eq(t.next_seq[i], LINES_PER_THREAD);
    }
    free(text);
    close(fd);
}
END_TEST

struct drain {
    pthread_t thread;
    int fd;
    char *text;
};

static void *drain_pipe(void *arg)
{
    struct drain *d = arg;
    d->text = read_all(d->fd, NULL);
    return NULL;
}

/* A pipe nobody reads blocks the writer; lines beyond the buffers are
 * dropped, counted, and reported once the pipe drains. */
START_TEST(test_full_buffer_drops_and_reports)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    ck_assert_int_eq(log_start(fds[1], 1), 0);
    const int lines = 2500; /* per thread: 10,000 lines of about 370 bytes */
    run_producers(lines, 256);
    struct drain d = {.fd = fds[0]};
    ck_assert_int_eq(pthread_create(&d.thread, NULL, drain_pipe, &d), 0);
    log_stop();
    close(fds[1]);
    ck_assert_int_eq(pthread_join(d.thread, NULL), 0);
    close(fds[0]);
    struct tally t;
    tally_lines(d.text, &t);
    ck_assert_int_gt(t.dropped, 0);
    ck_assert_int_ge(t.drop_reports, 1);
    ck_assert_int_eq(t.lines + t.dropped, THREADS * lines);
    free(d.text);
}
END_TEST

/* ---- life cycle ----------------------------------------------------- */

START_TEST(test_disabled_log_writes_nothing)
{
    int fd = temp_fd();
    ck_assert_int_eq(log_start(fd, 0), 0);
    for (int i = 0; i < 10; i++)
        log_request("GET", "/catalog", 200, 1, 1);
    log_stop();
    ck_assert_int_eq(lseek(fd, 0, SEEK_END), 0);
    close(fd);
}
END_TEST

START_TEST(test_stop_without_start_and_lines_after_stop)
{
    log_stop();
    log_request("GET", "/before-start", 200, 0, 0);
    int fd = temp_fd();
    ck_assert_int_eq(log_start(fd, 1), 0);
    ck_assert_int_eq(log_start(fd, 1), -1); /* already started */
    log_request("GET", "/during", 200, 0, 0);
    log_stop();
    log_stop();
    log_request("GET", "/after-stop", 200, 0, 0);
    char *text = read_file(fd);
    json_t *line = parse_line(text);
    ck_assert_str_eq(string_field(line, "path"), "/during");
    json_decref(line);
    free(text);
    close(fd);
}
END_TEST

START_TEST(test_restart_writes_to_the_new_descriptor)
{
    for (int round = 0; round < 3; round++) {
        char path[32];
        snprintf(path, sizeof path, "/round/%d", round);
        char *text = log_one("GET", path, 200, 0, 0);
        json_t *line = parse_line(text);
        ck_assert_str_eq(string_field(line, "path"), path);
        json_decref(line);
        free(text);
    }
}
END_TEST

/* ---- human lines ---------------------------------------------------- */

/* Runs log_info() and log_error() with standard error on a file. */
static char *capture_stderr(void (*emit)(void))
{
    int fd = temp_fd();
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
    emit();
    fflush(stderr);
    ck_assert_int_eq(dup2(saved, STDERR_FILENO), STDERR_FILENO);
    close(saved);
    char *text = read_file(fd);
    close(fd);
    return text;
}

static void emit_info_and_error(void)
{
    log_info("listening on %s:%d", "127.0.0.1", 8080);
    log_error("cannot open %s: %s", "data/gpuquote.db", "unable to open database file");
}

START_TEST(test_info_and_error_lines)
{
    char *text = capture_stderr(emit_info_and_error);
    ck_assert_str_eq(text, "gpuquote: info: listening on 127.0.0.1:8080\n"
                           "gpuquote: error: cannot open data/gpuquote.db: unable to open "
                           "database file\n");
    free(text);
}
END_TEST

static void emit_long_line(void)
{
    static char message[3000];
    memset(message, 'z', sizeof message - 1);
    log_error("%s", message);
}

START_TEST(test_long_human_line_is_cut_to_one_line)
{
    char *text = capture_stderr(emit_long_line);
    ck_assert_uint_eq(strlen(text), 1024);
    ck_assert_int_eq(strncmp(text, "gpuquote: error: zzz", 20), 0);
    ck_assert_ptr_eq(strchr(text, '\n'), text + 1023);
    free(text);
}
END_TEST

static void emit_client_bytes(void)
{
    log_error("request x: GET %s: cause", "/a\x1b[31mb\nc\xff\xc3\xa9");
}

/* Bytes a client sent reach the line printable: no escape sequence, no
 * second line, no broken UTF-8 (a well-formed character stays). */
START_TEST(test_human_line_shows_client_bytes_printable)
{
    char *text = capture_stderr(emit_client_bytes);
    ck_assert_str_eq(text, "gpuquote: error: request x: GET /a?[31mb?c?\xc3\xa9: cause\n");
    free(text);
}
END_TEST

static void emit_to_a_closed_pipe(void)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    close(fds[0]); /* nobody will read: every write fails with EPIPE */
    signal(SIGPIPE, SIG_IGN);
    ck_assert_int_eq(log_start(fds[1], 1), 0);
    for (int i = 0; i < 3; i++) {
        log_request("GET", "/lost", 200, 0, 0);
        struct timespec pause = {0, 300 * 1000 * 1000}; /* past a flush */
        nanosleep(&pause, NULL);
    }
    log_stop();
    close(fds[1]);
}

/* An access log that cannot be written is said once on standard error,
 * not once per flush, and not silently. */
START_TEST(test_write_failure_is_said_once)
{
    char *text = capture_stderr(emit_to_a_closed_pipe);
    ck_assert_str_eq(text, "gpuquote: error: access log: cannot write (Broken pipe); lines are "
                           "dropped and counted until it can\n");
    free(text);
}
END_TEST

static Suite *log_suite(void)
{
    Suite *suite = suite_create("log");

    TCase *format = tcase_create("format");
    tcase_add_test(format, test_line_is_exact);
    tcase_add_loop_test(format, test_numbers_are_exact, 0,
                        (int)(sizeof number_cases / sizeof number_cases[0]));
    tcase_add_test(format, test_request_id_client_and_query_members);
    tcase_add_test(format, test_query_is_escaped_and_cut);
    tcase_add_loop_test(format, test_path_escaping, 0,
                        (int)(sizeof escape_cases / sizeof escape_cases[0]));
    tcase_add_test(format, test_interrupted_request_says_why);
    tcase_add_test(format, test_method_is_escaped_and_null_path_is_empty);
    tcase_add_test(format, test_unknown_method_is_left_out);
    tcase_add_loop_test(format, test_path_is_cut_at_256_bytes, 0,
                        (int)(sizeof cut_cases / sizeof cut_cases[0]));
    tcase_add_test(format, test_method_is_cut_at_32_bytes);
    suite_add_tcase(suite, format);

    TCase *writer = tcase_create("writer");
    tcase_set_timeout(writer, 60);
    tcase_add_test(writer, test_timer_flushes_without_stop);
    tcase_add_test(writer, test_threads_lose_no_line_uncounted);
    tcase_add_test(writer, test_full_buffer_drops_and_reports);
    tcase_add_test(writer, test_disabled_log_writes_nothing);
    tcase_add_test(writer, test_stop_without_start_and_lines_after_stop);
    tcase_add_test(writer, test_restart_writes_to_the_new_descriptor);
    suite_add_tcase(suite, writer);

    TCase *human = tcase_create("human");
    tcase_add_test(human, test_info_and_error_lines);
    tcase_add_test(human, test_long_human_line_is_cut_to_one_line);
    tcase_add_test(human, test_write_failure_is_said_once);
    tcase_add_test(human, test_human_line_shows_client_bytes_printable);
    suite_add_tcase(suite, human);

    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(log_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
