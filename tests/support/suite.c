/*
 * Time limits, out-of-test failures and main() for the integration tests.
 *
 * A shared server is started and stopped by an unchecked fixture, which
 * Check runs in the runner process where an assertion cannot fail a test.
 * Its exit status is therefore recorded here and turned into the program's
 * exit status, so a shared server that crashes or leaks (valgrind exits 99)
 * still fails `make check`.
 */
#include "support/suite.h"

#include <curl/curl.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int recorded_failures;
static char temp_root[256];

int suite_slowness(void)
{
    const char *slow = getenv("GPUQUOTE_SLOW");
    return slow != NULL && slow[0] != '\0' && slow[0] != '0' ? 10 : 1;
}

long suite_wait_ms(double seconds)
{
    return (long)(seconds * 1000.0 * suite_slowness());
}

void suite_set_timeout(TCase *tcase, double seconds)
{
    double wanted = seconds * suite_slowness();
    const char *configured = getenv("CK_DEFAULT_TIMEOUT");
    if (configured != NULL) {
        char *end;
        double value = strtod(configured, &end);
        if (end != configured && *end == '\0' && value > wanted)
            wanted = value;
    }
    tcase_set_timeout(tcase, wanted);
}

void suite_record_failure(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("FAILURE outside a test: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    recorded_failures++;
}

const char *suite_temp_root(void)
{
    if (temp_root[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(temp_root, sizeof temp_root, "%s/gpuquote-tests-XXXXXX",
                 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
        if (mkdtemp(temp_root) == NULL) {
            fprintf(stderr, "mkdtemp %s: %s\n", temp_root, strerror(errno));
            abort();
        }
    }
    return temp_root;
}

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *ftw)
{
    (void)info;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void suite_remove_tree(const char *path)
{
    const char *keep = getenv("GPUQUOTE_KEEP_TEST_DIRS");
    if (keep != NULL && keep[0] != '\0')
        fprintf(stderr, "kept %s\n", path);
    else
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int suite_main(Suite *suite)
{
    /* A test writing to a socket the server closed must see EPIPE. */
    signal(SIGPIPE, SIG_IGN);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fputs("cannot initialise libcurl\n", stderr);
        return EXIT_FAILURE;
    }
    suite_temp_root(); /* made here, so that forked tests share it */
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    curl_global_cleanup();
    suite_remove_tree(temp_root);
    return failed == 0 && recorded_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void suite_sleep_ms(long milliseconds)
{
    struct timespec pause = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
        continue;
}

long long suite_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}
