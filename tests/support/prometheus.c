/*
 * A Prometheus server for the metrics tests (prometheus.h).
 */
#include "support/prometheus.h"

#include <check.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/http.h"
#include "support/suite.h"

#define PROMETHEUS_BIN "/usr/bin/prometheus"
#define PROMTOOL_BIN "/usr/bin/promtool"

/* A loopback port free now (bound and released: Prometheus binds it a
 * moment later; another process taking it in between is unlikely and
 * fails the start loudly). */
static uint16_t free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_msg(fd >= 0, "socket: %s", strerror(errno));
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    ck_assert_msg(bind(fd, (struct sockaddr *)&address, sizeof address) == 0 &&
                      getsockname(fd, (struct sockaddr *)&address, &length) == 0,
                  "bind: %s", strerror(errno));
    close(fd);
    return ntohs(address.sin_port);
}

static void write_config(const struct prometheus *prometheus, uint16_t target_port)
{
    char path[512];
    snprintf(path, sizeof path, "%s/prometheus.yml", prometheus->dir);
    FILE *file = fopen(path, "w");
    ck_assert_msg(file != NULL, "%s: %s", path, strerror(errno));
    fprintf(file,
            "global:\n"
            "  scrape_interval: 1s\n"
            "  evaluation_interval: 1s\n"
            "scrape_configs:\n"
            "  - job_name: gpuquote\n"
            "    scrape_interval: 1s\n"
            "    scrape_timeout: 1s\n"
            "    static_configs:\n"
            "      - targets: [\"127.0.0.1:%u\"]\n",
            (unsigned)target_port);
    ck_assert_int_eq(fclose(file), 0);
}

/* In the child: its own process group, dies with the test, output to
 * prometheus.log in its directory. */
static void exec_prometheus(const struct prometheus *prometheus)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setpgid(0, 0);
    char log_path[512], config[320], storage[320], listen[64];
    snprintf(log_path, sizeof log_path, "%s/prometheus.log", prometheus->dir);
    snprintf(config, sizeof config, "--config.file=%s/prometheus.yml", prometheus->dir);
    snprintf(storage, sizeof storage, "--storage.tsdb.path=%s/data", prometheus->dir);
    snprintf(listen, sizeof listen, "--web.listen-address=127.0.0.1:%u",
             (unsigned)prometheus->port);
    int in = open("/dev/null", O_RDONLY);
    int out = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
        chdir(prometheus->dir) != 0)
        _exit(126);
    execl(PROMETHEUS_BIN, PROMETHEUS_BIN, config, storage, listen, "--log.level=warn",
          (char *)NULL);
    _exit(127);
}

/* The last 40 lines of its log, for the caller to free. */
static char *read_log(const struct prometheus *prometheus)
{
    char path[512];
    snprintf(path, sizeof path, "%s/prometheus.log", prometheus->dir);
    return suite_file_tail(path, 40);
}

static void wait_ready(struct prometheus *prometheus)
{
    long long deadline = suite_now_ms() + suite_wait_ms(30);
    while (suite_now_ms() < deadline) {
        int status;
        if (waitpid(prometheus->pid, &status, WNOHANG) == prometheus->pid) {
            prometheus->pid = 0;
            char *log = read_log(prometheus);
            ck_abort_msg("prometheus exited at start; the end of its log:\n%s", log);
        }
        struct http_client *client = http_client_keyless(prometheus->port);
        http_client_unlogged(client);
        struct http_response *ready = http_request(client, "GET", "/-/ready", NULL, NULL);
        bool answered = ready->status == 200;
        http_response_free(ready);
        http_client_free(client);
        if (answered)
            return;
        suite_sleep_ms(100);
    }
    char *log = read_log(prometheus);
    ck_abort_msg("prometheus not ready in time; the end of its log:\n%s", log);
}

void prometheus_start(struct prometheus *prometheus, uint16_t target_port)
{
    memset(prometheus, 0, sizeof *prometheus);
    ck_assert_msg(access(PROMETHEUS_BIN, X_OK) == 0,
                  PROMETHEUS_BIN " is missing: scripts/deps.sh test installs it");
    snprintf(prometheus->dir, sizeof prometheus->dir, "%s/prometheus.XXXXXX", suite_temp_root());
    ck_assert_msg(mkdtemp(prometheus->dir) != NULL, "mkdtemp: %s", strerror(errno));
    write_config(prometheus, target_port);
    prometheus->port = free_port();
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0)
        exec_prometheus(prometheus);
    setpgid(pid, pid); /* as the child does: whichever runs first */
    prometheus->pid = pid;
    wait_ready(prometheus);
}

/* The value of the first result of `query`; NaN when there is none. */
static double query_once(struct prometheus *prometheus, const char *query)
{
    CURL *curl = curl_easy_init();
    char *escaped = curl_easy_escape(curl, query, 0);
    char path[1024];
    snprintf(path, sizeof path, "/api/v1/query?query=%s", escaped);
    curl_free(escaped);
    curl_easy_cleanup(curl);
    struct http_client *client = http_client_keyless(prometheus->port);
    http_client_unlogged(client);
    struct http_response *answer = http_request(client, "GET", path, NULL, NULL);
    double value = NAN;
    json_t *result = answer->json != NULL
                         ? json_object_get(json_object_get(answer->json, "data"), "result")
                         : NULL;
    json_t *first = json_array_get(result, 0);
    const char *text = json_string_value(json_array_get(json_object_get(first, "value"), 1));
    if (text != NULL)
        value = strtod(text, NULL);
    http_response_free(answer);
    http_client_free(client);
    return value;
}

double prometheus_query_until(struct prometheus *prometheus, const char *query, double wanted,
                              long timeout_ms)
{
    long long deadline = suite_now_ms() + timeout_ms;
    double value = NAN;
    for (;;) {
        value = query_once(prometheus, query);
        if (value == wanted || suite_now_ms() >= deadline)
            return value;
        suite_sleep_ms(200);
    }
}

void prometheus_stop(struct prometheus *prometheus)
{
    if (prometheus->pid > 0) {
        kill(-prometheus->pid, SIGTERM);
        long long deadline = suite_now_ms() + 5000;
        int status;
        while (waitpid(prometheus->pid, &status, WNOHANG) == 0 && suite_now_ms() < deadline)
            suite_sleep_ms(50);
        kill(-prometheus->pid, SIGKILL); /* the group: nothing of it is left */
        waitpid(prometheus->pid, &status, 0);
        prometheus->pid = 0;
    }
    if (prometheus->dir[0] != '\0')
        suite_remove_tree(prometheus->dir);
    prometheus->dir[0] = '\0';
}

int promtool_check_metrics(const char *exposition, char **output)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/promtool.XXXXXX", suite_temp_root());
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
    char input[320], printed[320], command[1024];
    snprintf(input, sizeof input, "%s/metrics.txt", dir);
    snprintf(printed, sizeof printed, "%s/promtool.out", dir);
    FILE *file = fopen(input, "w");
    ck_assert_msg(file != NULL, "%s: %s", input, strerror(errno));
    fputs(exposition, file);
    ck_assert_int_eq(fclose(file), 0);
    snprintf(command, sizeof command, PROMTOOL_BIN " check metrics <'%s' >'%s' 2>&1", input,
             printed);
    int status = system(command);
    file = fopen(printed, "r");
    *output = calloc(1, 8193);
    if (file != NULL) {
        size_t n = fread(*output, 1, 8192, file);
        (*output)[n] = '\0';
        fclose(file);
    }
    suite_remove_tree(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
