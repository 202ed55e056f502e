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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

void suite_add_sqlite_test(TCase *tcase, const TTest *test)
{
    const char *backend = getenv("GPUQUOTE_TEST_BACKEND");
    if (backend != NULL && strcmp(backend, "postgres") == 0) {
        fprintf(stderr, "  not run on postgres (a test of SQLite's file): %s\n", test->name);
        return;
    }
    tcase_add_test(tcase, test);
}

void suite_copy_file(const char *from, const char *to, unsigned mode)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    ck_assert_msg(in >= 0, "%s: %s", from, strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
    ck_assert_msg(out >= 0, "%s: %s", to, strerror(errno));
    char buffer[65536];
    ssize_t got;
    while ((got = read(in, buffer, sizeof buffer)) > 0)
        ck_assert_msg(write(out, buffer, (size_t)got) == got, "%s: %s", to, strerror(errno));
    ck_assert_msg(got == 0, "%s: %s", from, strerror(errno));
    close(in);
    ck_assert_int_eq(fchmod(out, (mode_t)mode), 0);
    ck_assert_int_eq(close(out), 0);
}

void suite_copy_tree(const char *from, const char *to, unsigned directory_mode, unsigned file_mode)
{
    ck_assert_msg(mkdir(to, (mode_t)directory_mode) == 0 || errno == EEXIST, "%s: %s", to,
                  strerror(errno));
    DIR *directory = opendir(from);
    ck_assert_msg(directory != NULL, "%s: %s", from, strerror(errno));
    for (struct dirent *entry; (entry = readdir(directory)) != NULL;) {
        if (entry->d_name[0] == '.')
            continue;
        char from_path[PATH_MAX], to_path[PATH_MAX];
        snprintf(from_path, sizeof from_path, "%s/%s", from, entry->d_name);
        snprintf(to_path, sizeof to_path, "%s/%s", to, entry->d_name);
        struct stat info;
        ck_assert_msg(stat(from_path, &info) == 0, "%s: %s", from_path, strerror(errno));
        if (S_ISDIR(info.st_mode))
            suite_copy_tree(from_path, to_path, directory_mode, file_mode);
        else
            suite_copy_file(from_path, to_path, file_mode);
    }
    closedir(directory);
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

char *suite_file_tail(const char *path, int lines)
{
    enum { MOST = 16384 };
    char *tail = calloc(1, MOST + 64 + strlen(path));
    ck_assert_ptr_nonnull(tail);
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        sprintf(tail, "(no log at %s)", path);
        return tail;
    }
    long size = fseek(file, 0, SEEK_END) == 0 ? ftell(file) : -1;
    long from = size > MOST ? size - MOST : 0;
    size_t got = fseek(file, from, SEEK_SET) == 0 ? fread(tail, 1, MOST, file) : 0;
    fclose(file);
    tail[got] = '\0';
    /* Back from the end over `lines` line breaks (a last one ends the
     * last line and is not counted). */
    size_t at = got > 0 && tail[got - 1] == '\n' ? got - 1 : got;
    while (at > 0 && (tail[at - 1] != '\n' || --lines > 0))
        at--;
    memmove(tail, tail + at, got - at + 1);
    return tail;
}
