/*
 * What every integration-test program shares around Check: time limits
 * that stretch when the server runs under valgrind (GPUQUOTE_SLOW), failures
 * found outside a test (a shared server that did not exit 0), and main().
 *
 * Each tests/http/check_*.c defines one Suite and ends with
 * `int main(void) { return suite_main(make_suite()); }`.
 */
#ifndef GQ_TESTS_SUPPORT_SUITE_H
#define GQ_TESTS_SUPPORT_SUITE_H

#include <check.h>
#include <stdbool.h>

/* 10 when GPUQUOTE_SLOW is set (valgrind), else 1. */
int suite_slowness(void);

/* `seconds` × suite_slowness(), in milliseconds: for waits inside tests. */
long suite_wait_ms(double seconds);

/* Sets the test case's timeout to `seconds` × suite_slowness(), or to
 * CK_DEFAULT_TIMEOUT when that asks for more. (Check multiplies the result
 * by CK_TIMEOUT_MULTIPLIER itself.) */
void suite_set_timeout(TCase *tcase, double seconds);

/* Records a failure that no test can report (an unchecked teardown runs
 * outside every test): it is printed now and makes suite_main() fail. */
void suite_record_failure(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Runs `suite` (taking it over) with libcurl initialised; returns the exit
 * status for main(): EXIT_FAILURE when a test or a recorded check failed. */
int suite_main(Suite *suite);

/* The directory that holds every server directory of this run, created by
 * suite_main() and removed with everything in it when the run ends, also
 * what a failed forked test left behind (Check ends it with _exit, so its
 * teardown never runs). GPUQUOTE_KEEP_TEST_DIRS=1 keeps it. */
const char *suite_temp_root(void);

/* Removes `path` and everything under it, unless GPUQUOTE_KEEP_TEST_DIRS is
 * set. */
void suite_remove_tree(const char *path);

/* Adds `test` to `tcase`, unless this run is for PostgreSQL
 * (GPUQUOTE_TEST_BACKEND=postgres, testdb.h): a test of SQLite's file (its
 * lock held by another connection, its modes, its WAL) has no meaning
 * there, and is named on standard error as not run, never left out in
 * silence. PostgreSQL's own faults have tests of their own. */
void suite_add_sqlite_test(TCase *tcase, const TTest *test);

/* Copies the file `from` to `to` with `mode`; fails the test on any error. */
void suite_copy_file(const char *from, const char *to, unsigned mode);

/* Copies the directory `from` with everything below it (but names that
 * begin with '.') to `to`, created with `directory_mode` (it may exist),
 * its files with `file_mode`. Fails the test on any error. */
void suite_copy_tree(const char *from, const char *to, unsigned directory_mode, unsigned file_mode);

/* The last `lines` lines of the file at `path` (at most 16 KB of them), for
 * a failure message that says why a helper server did not start;
 * "(no log at PATH)" when it cannot be read. The caller frees it. */
char *suite_file_tail(const char *path, int lines);

/* Sleeps `milliseconds`, resuming after signals. */
void suite_sleep_ms(long milliseconds);

/* Monotonic milliseconds, for measuring how long something took. */
long long suite_now_ms(void);

#endif
