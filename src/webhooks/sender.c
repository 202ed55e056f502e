/*
 * The webhook sender (sender.h), on libcurl's multi interface: the one
 * file that knows libcurl. Each request follows the Standard Webhooks
 * specification: POST of the event's JSON with webhook-id (the event's id,
 * the same on every retry), webhook-timestamp (unix seconds) and
 * webhook-signature; no redirect is followed; https certificates are
 * verified (libcurl's default, kept); no proxy is used, whatever the
 * environment says; a socket to an address that is not globally reachable
 * (webhook_address_is_private) is refused unless webhooks_allow_private,
 * whatever a host name resolved to when the endpoint was made.
 */
#include "webhooks/sender.h"

#include <curl/curl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/time.h>
#include <unistd.h>

#include "util/log.h"
#include "util/secret_box.h"
#include "util/webhook.h"
#include "util/worker.h"

struct webhook_sender {
    const struct gq_config *config;
    struct store *store;
    struct worker *worker;
    int nudge_fd; /* the store committed events: look now */
};

struct transfer {
    struct claimed_delivery *delivery;
    CURL *easy;
    struct curl_slist *headers;
    int64_t started_ms;
    bool allow_private;
};

static int64_t now_ms(void)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    return (int64_t)now.tv_sec * 1000 + now.tv_usec / 1000;
}

static void on_events(void *context)
{
    struct webhook_sender *sender = context;
    uint64_t one = 1;
    ssize_t written = write(sender->nudge_fd, &one, sizeof one);
    (void)written; /* a full counter is awake already */
}

static size_t discard(char *data, size_t size, size_t count, void *context)
{
    (void)data;
    (void)context;
    return size * count;
}

/* Refuses a socket to a private address (SSRF), unless allowed. */
static curl_socket_t open_socket(void *context, curlsocktype purpose, struct curl_sockaddr *address)
{
    const struct transfer *transfer = context;
    (void)purpose;
    if (!transfer->allow_private && webhook_address_is_private(&address->addr))
        return CURL_SOCKET_BAD;
    return socket(address->family, address->socktype, address->protocol);
}

/* The delivery's signature, its endpoint's secret opened with the
 * keyring; false (logged, never signed with anything else) when it does
 * not open. */
static bool sign(const struct webhook_sender *sender, const struct claimed_delivery *delivery,
                 int64_t timestamp, char signature[WEBHOOK_SIGNATURE_SIZE])
{
    static const struct secret_keyring none = {.count = 0};
    const struct secret_keyring *ring = sender->config->secrets_keyring;
    char secret[SECRET_BOX_SEALED_SIZE];
    struct gq_error err;
    if (store_webhook_secret_open(ring != NULL ? ring : &none, delivery->endpoint_id,
                                  delivery->secret, secret, sizeof secret, &err) != GQ_OK) {
        log_error("webhook delivery %s: %s", delivery->id, err.message);
        return false;
    }
    bool signed_ = webhook_sign(secret, delivery->event_id, timestamp, delivery->body,
                                strlen(delivery->body), signature);
    memset(secret, 0, sizeof secret);
    return signed_;
}

static bool prepare(struct webhook_sender *sender, struct transfer *transfer)
{
    const struct claimed_delivery *delivery = transfer->delivery;
    int64_t timestamp = now_ms() / 1000;
    char signature[WEBHOOK_SIGNATURE_SIZE], header[160];
    if (!sign(sender, delivery, timestamp, signature))
        return false;
    transfer->easy = curl_easy_init();
    if (transfer->easy == NULL)
        return false;
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    snprintf(header, sizeof header, "webhook-id: %s", delivery->event_id);
    headers = curl_slist_append(headers, header);
    snprintf(header, sizeof header, "webhook-timestamp: %lld", (long long)timestamp);
    headers = curl_slist_append(headers, header);
    snprintf(header, sizeof header, "webhook-signature: %s", signature);
    headers = curl_slist_append(headers, header);
    headers = curl_slist_append(headers, "User-Agent: gpuquote-webhooks/" GQ_VERSION);
    headers = curl_slist_append(headers, "Expect:");
    memset(signature, 0, sizeof signature);
    transfer->headers = headers;
    transfer->allow_private = sender->config->webhooks_allow_private;
    CURL *easy = transfer->easy;
    curl_easy_setopt(easy, CURLOPT_URL, delivery->url);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR,
                     sender->config->webhooks_allow_http ? "http,https" : "https");
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    /* Never a proxy from the environment (https_proxy, all_proxy): only the
     * proxy's address would be checked, not the endpoint's. */
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    curl_easy_setopt(easy, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)sender->config->webhook_timeout_ms);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, delivery->body);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, (long)strlen(delivery->body));
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, transfer);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, transfer);
    transfer->started_ms = now_ms();
    return true;
}

/* Records how a try went and what comes next. */
static void record(struct webhook_sender *sender, struct transfer *transfer, CURLcode result)
{
    long status = 0;
    if (result == CURLE_OK)
        curl_easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &status);
    int64_t at = now_ms();
    char error[160] = "";
    if (result != CURLE_OK)
        snprintf(error, sizeof error, "%s", curl_easy_strerror(result));
    else if (status < 200 || status > 299)
        snprintf(error, sizeof error, "HTTP %ld", status);
    struct stored_attempt attempt = {
        .at_ms = transfer->started_ms,
        .status_code = (int)status,
        .error = result != CURLE_OK ? error : NULL,
        .duration_ms = at - transfer->started_ms,
    };
    const char *outcome = "succeeded";
    int64_t next = at;
    if (error[0] != '\0') {
        int64_t delay = webhook_retry_delay_ms(transfer->delivery->attempts + 1,
                                               sender->config->webhook_retry_divisor);
        outcome = delay < 0 ? "failed" : "pending";
        next = delay < 0 ? at : at + delay;
    }
    struct gq_error err;
    int64_t disable_after_ms = sender->config->webhook_disable_after_seconds * 1000;
    bool disabled = false;
    if (store_delivery_finish(sender->store, transfer->delivery->id, &attempt, outcome, next,
                              disable_after_ms > 0 ? at - disable_after_ms : 0, &disabled,
                              &err) != GQ_OK)
        log_warning("webhook delivery %s: cannot record its try: %s", transfer->delivery->id,
                    err.message);
    else if (disabled)
        log_warning("webhook delivery %s: its endpoint has failed for %lld s and is disabled",
                    transfer->delivery->id,
                    (long long)sender->config->webhook_disable_after_seconds);
}

/* Sends a claimed batch at once and records each. */
static void send_batch(struct webhook_sender *sender, struct claimed_delivery *items, size_t count)
{
    struct transfer transfers[WEBHOOK_SENDER_BATCH];
    memset(transfers, 0, sizeof transfers);
    CURLM *multi = curl_multi_init();
    if (multi == NULL)
        return; /* leased: tried again once the lease runs out */
    for (size_t i = 0; i < count; i++) {
        transfers[i].delivery = &items[i];
        transfers[i].started_ms = now_ms();
        if (prepare(sender, &transfers[i]))
            curl_multi_add_handle(multi, transfers[i].easy);
        else
            record(sender, &transfers[i], CURLE_FAILED_INIT);
    }
    int running = 1;
    while (running > 0 && !worker_stopping(sender->worker)) {
        if (curl_multi_perform(multi, &running) != CURLM_OK)
            break;
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left)) != NULL) {
            if (message->msg != CURLMSG_DONE)
                continue;
            struct transfer *transfer = NULL;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&transfer);
            record(sender, transfer, message->data.result);
            curl_multi_remove_handle(multi, message->easy_handle);
        }
        if (running > 0) {
            struct curl_waitfd stop = {worker_wake_fd(sender->worker), CURL_WAIT_POLLIN, 0};
            curl_multi_poll(multi, &stop, 1, 100, NULL);
        }
    }
    for (size_t i = 0; i < count; i++) {
        if (transfers[i].easy != NULL) {
            curl_multi_remove_handle(multi, transfers[i].easy);
            curl_easy_cleanup(transfers[i].easy);
        }
        curl_slist_free_all(transfers[i].headers);
    }
    curl_multi_cleanup(multi);
}

static void run(struct worker *worker, void *context)
{
    struct webhook_sender *sender = context;
    int64_t lease = 2 * (int64_t)sender->config->webhook_timeout_ms;
    while (!worker_stopping(worker)) {
        struct claimed_delivery *items = NULL;
        size_t count = 0;
        struct gq_error err;
        if (store_deliveries_claim(sender->store, now_ms(), lease, WEBHOOK_SENDER_BATCH, &items,
                                   &count, &err) != GQ_OK)
            log_warning("webhooks: cannot claim deliveries: %s", err.message);
        if (count > 0) {
            send_batch(sender, items, count);
            store_claimed_free(items, count);
            continue; /* more may be due */
        }
        store_claimed_free(items, count);
        struct pollfd fds[2] = {{.fd = worker_wake_fd(worker), .events = POLLIN},
                                {.fd = sender->nudge_fd, .events = POLLIN}};
        if (poll(fds, 2, sender->config->webhook_poll_ms) > 0 && (fds[1].revents & POLLIN)) {
            uint64_t drained;
            ssize_t got = read(sender->nudge_fd, &drained, sizeof drained);
            (void)got;
        }
    }
}

struct webhook_sender *webhook_sender_start(const struct gq_config *config, struct store *store)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        log_error("webhooks: cannot initialise libcurl");
        return NULL;
    }
    struct webhook_sender *sender = calloc(1, sizeof *sender);
    if (sender == NULL)
        return NULL;
    sender->config = config;
    sender->store = store;
    sender->nudge_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (sender->nudge_fd < 0) {
        free(sender);
        return NULL;
    }
    store_listen_for_events(store, on_events, sender);
    sender->worker = worker_start("gq-webhooks", run, sender);
    if (sender->worker == NULL) {
        store_listen_for_events(store, NULL, NULL);
        close(sender->nudge_fd);
        free(sender);
        return NULL;
    }
    return sender;
}

void webhook_sender_stop(struct webhook_sender *sender)
{
    if (sender == NULL)
        return;
    worker_stop(sender->worker);
    store_listen_for_events(sender->store, NULL, NULL);
    close(sender->nudge_fd);
    free(sender);
    curl_global_cleanup();
}
