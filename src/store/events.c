/*
 * Events, the part every backend shares: an event made (its ordered id, its
 * time and its JSON around an object's text the caller rendered, or the
 * store_render set from above rendered), and the wrappers of store.h.
 *
 * An event is written in the transaction of the change it tells of (the
 * outbox): the backends append it with sqlite_event_append() or
 * pg_event_append() inside their own transactions, which fan it out to the
 * webhook endpoints that take its type in the same transaction.
 */
#include <assert.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "store/backend.h"
#include "store/page.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/ids.h"

/* Set once before the store is used (store_set_render()). */
static const struct store_render *render;

void store_set_render(const struct store_render *with)
{
    render = with;
}

const struct store_render *store_render(void)
{
    return render;
}

void store_event_clear(struct store_event *event)
{
    if (event == NULL)
        return;
    free(event->body);
    free(event->packed.block);
    memset(event, 0, sizeof *event);
}

void store_event_page_free(struct event_page *page)
{
    STORE_LIST_FREE(page, store_event_clear);
}

static int64_t now_ms(void)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    return (int64_t)now.tv_sec * 1000 + now.tv_usec / 1000;
}

/* True when `text` is, by its first and last non-blank bytes, a JSON
 * object. The objects of events are the service's own texts (a rendered
 * quote, json_dumps() of one); a full parse of a quote to check it cost
 * several times the rest of saving it (bench/ANALYSIS.md). */
static bool looks_like_object(const char *text)
{
    size_t start = strspn(text, " \t\r\n"), end = strlen(text);
    while (end > start && strchr(" \t\r\n", text[end - 1]) != NULL)
        end--;
    return end - start >= 2 && text[start] == '{' && text[end - 1] == '}';
}

/* The body of event `out` (its id, type and times set) around `object`,
 * and its packed form. */
static enum gq_code fill_body(const char *object, struct store_event *out, struct gq_error *err)
{
    const char *type = out->type;
    char created[CLOCK_RFC3339_SIZE];
    /* The object's own bytes, copied (printf's %s copies byte by byte):
     * the event carries it exactly as the API returned it. */
    char head[160];
    int head_length = snprintf(head, sizeof head,
                               "{\"id\":\"%s\",\"object\":\"event\",\"type\":\"%s\","
                               "\"created_at\":\"%s\",\"data\":{\"object\":",
                               out->id, type, clock_format_rfc3339(out->created_at, created));
    size_t object_length = strlen(object);
    if (head_length < 0 || (size_t)head_length >= sizeof head)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot make an event");
    out->body = malloc((size_t)head_length + object_length + 3);
    if (out->body == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory making an event");
    memcpy(out->body, head, (size_t)head_length);
    memcpy(out->body + head_length, object, object_length);
    memcpy(out->body + head_length + object_length, "}}", 3);
    /* Stored compressed (migration 0011): a quote's event is the quote again. */
    enum gq_code code = store_pack_text(out->body, &out->packed, err);
    if (code != GQ_OK)
        store_event_clear(out);
    return code;
}

/* The checks of an event's type and object: the type is one of
 * STORE_EVENT_* and the id ours, so neither needs escaping. */
static enum gq_code check_event(const char *type, const char *object, struct store_event *out,
                                struct gq_error *err)
{
    assert(type != NULL && object != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    if (!looks_like_object(object))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "an event's object is not a JSON object");
    if (strlen(type) >= sizeof out->type || strpbrk(type, "\"\\") != NULL)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot make an event");
    snprintf(out->type, sizeof out->type, "%s", type);
    return GQ_OK;
}

enum gq_code store_event_make(const char *type, const char *object, struct store_event *out,
                              struct gq_error *err)
{
    enum gq_code code = check_event(type, object, out, err);
    if (code != GQ_OK)
        return code;
    if (!ids_generate_ordered("evt_", out->id))
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot make an event");
    out->created_ms = now_ms();
    out->created_at = out->created_ms / 1000;
    return fill_body(object, out, err);
}

enum gq_code store_event_remake(const char *id, const char *type, int64_t created_at,
                                const char *object, struct store_event *out, struct gq_error *err)
{
    enum gq_code code = check_event(type, object, out, err);
    if (code != GQ_OK)
        return code;
    if (strlen(id) >= sizeof out->id || strpbrk(id, "\"\\") != NULL)
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot remake event %.40s", id);
    snprintf(out->id, sizeof out->id, "%s", id);
    out->created_at = created_at;
    out->created_ms = created_at * 1000;
    return fill_body(object, out, err);
}

void store_event_concerns(struct store_event *event, const char *customer_id)
{
    snprintf(event->customer_id, sizeof event->customer_id, "%s",
             customer_id != NULL ? customer_id : "");
}

enum gq_code store_event_for_save(struct quote_save *save, struct gq_error *err)
{
    assert(save->event == NULL);
    save->event = calloc(1, sizeof *save->event);
    if (save->event == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory making an event");
    /* The quote as it was sent: its stored text, status "open". */
    enum gq_code code =
        store_event_make(STORE_EVENT_QUOTE_CREATED, save->quote.response_json, save->event, err);
    if (code == GQ_OK)
        store_event_concerns(save->event, save->customer_id);
    if (code != GQ_OK) {
        free(save->event);
        save->event = NULL;
    }
    return code;
}

enum gq_code store_event_of_text(const char *type, char *object, struct store_event *out,
                                 struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    enum gq_code code = object != NULL
                            ? store_event_make(type, object, out, err)
                            : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory making an event");
    free(object);
    return code;
}

enum gq_code store_event_of_quote(const char *type, const struct stored_quote *quote, int64_t now,
                                  struct store_event *out, struct gq_error *err)
{
    char *object = render != NULL ? render->quote(quote, now) : NULL;
    if (object == NULL) {
        memset(out, 0, sizeof *out);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "stored quote %s is unreadable", quote->id);
    }
    enum gq_code code = store_event_of_text(type, object, out, err);
    if (code == GQ_OK)
        store_event_concerns(out, quote->customer_id);
    return code;
}

enum gq_code store_event_publish(struct store *store, const char *type, const char *object,
                                 struct gq_error *err)
{
    struct store_event event;
    enum gq_code code = store_event_make(type, object, &event, err);
    if (code == GQ_OK)
        code = store_ops(store)->append_event(store_backend(store), &event, err);
    store_event_clear(&event);
    if (code == GQ_OK)
        store_events_committed(store);
    return code;
}

enum gq_code store_events_read(struct store *store, const char *type, const char *customer_id,
                               const char *starting_after, size_t limit, struct event_page *out,
                               struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    enum gq_code code = store_ops(store)->events_read(store_backend(store), type, customer_id, NULL,
                                                      starting_after, limit, out, err);
    STORE_PAGE_END(code, out, limit, store_event_clear);
    return code;
}

enum gq_code store_event_get(struct store *store, const char *id, struct store_event *out,
                             struct gq_error *err)
{
    struct event_page page = {0};
    enum gq_code code =
        store_ops(store)->events_read(store_backend(store), NULL, NULL, id, NULL, 1, &page, err);
    if (code == GQ_OK && !store_items_take_first(page.items, page.count, sizeof *page.items, out))
        code = gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_EVENT, MSG_TEXT_CUT(id, 40));
    store_event_page_free(&page);
    return code;
}
