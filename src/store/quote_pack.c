/*
 * What every backend does alike with a quote: the checks before it is
 * written, and its response packed as an LZ4 block and unpacked again (and
 * so an event's body: a quote's events carry the quote).
 *
 * A quote's JSON repeats itself (every option spells out its plan), so LZ4
 * makes it a fraction of its size: stored as text, each quote took an
 * overflow page of its own in SQLite, written twice. Rows stored before
 * compression keep their text, and both forms read back the same. A saved
 * quote's compression runs on the writer thread.
 */
#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "store/backend.h"
#include "store/store.h"

void stored_quote_clear(struct stored_quote *quote)
{
    if (quote == NULL)
        return;
    free(quote->request_json);
    free(quote->response_json);
    free(quote->idempotency_key);
    free(quote->cancel_reason);
    free(quote->acceptance);
    memset(quote, 0, sizeof *quote);
}

const char *stored_quote_status(const struct stored_quote *quote, int64_t now)
{
    if (quote->accepted)
        return "accepted";
    if (quote->canceled_at > 0)
        return "canceled";
    if (quote->expired_at > 0 || quote->expires_at <= now)
        return "expired";
    return "open";
}

enum gq_code store_check_quote(const struct stored_quote *quote, struct gq_error *err)
{
    size_t id_length = strnlen(quote->id, sizeof quote->id);
    if (id_length == 0 || id_length >= sizeof quote->id)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "a quote id has 1 to %d characters",
                       STORE_QUOTE_ID_SIZE - 1);
    if (quote->request_json == NULL || quote->response_json == NULL ||
        quote->response_json[0] == '\0')
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "a quote needs its request and response");
    if (quote->idempotency_key != NULL && quote->idempotency_key[0] == '\0')
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "an idempotency key cannot be empty");
    return GQ_OK;
}

enum gq_code store_pack_text(const char *text, struct packed_response *out, struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    size_t length = strlen(text);
    if (length > LZ4_MAX_INPUT_SIZE) /* ~2 GB: nothing the server renders */
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "a text of %zu bytes is too large to store",
                       length);
    int bound = LZ4_compressBound((int)length);
    char *block = malloc((size_t)bound);
    if (block == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory storing a text");
    int block_size = LZ4_compress_default(text, block, (int)length, bound);
    if (block_size <= 0) { /* cannot happen with a bound-sized block */
        free(block);
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "cannot compress a text to store");
    }
    out->block = block;
    out->block_size = (size_t)block_size;
    out->size = (int64_t)length;
    return GQ_OK;
}

enum gq_code store_pack_response(struct quote_save *save, struct gq_error *err)
{
    return store_pack_text(save->quote.response_json, &save->packed, err);
}

static enum gq_code report_damaged(const char *kind, const char *id, struct gq_error *err)
{
    return gq_fail(err, GQ_ERR_INTERNAL, NULL, "%s %s is stored damaged", kind, id);
}

enum gq_code store_unpack_stored(const char *kind, const char *id,
                                 const struct stored_response *stored, char **out,
                                 struct gq_error *err)
{
    if (stored->block == NULL) { /* stored as text, before compression */
        if (stored->text == NULL)
            return report_damaged(kind, id, err);
        *out = strdup(stored->text);
        return *out != NULL
                   ? GQ_OK
                   : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading a %s", kind);
    }
    int64_t size = stored->size;
    /* LZ4 expands at most 255 to 1: a larger recorded size is damage, and
     * would cost an allocation of up to 2 GB before the block failed. */
    if (size < 1 || size > LZ4_MAX_INPUT_SIZE || stored->block_size > LZ4_MAX_INPUT_SIZE ||
        size > (int64_t)stored->block_size * 255 + 16)
        return report_damaged(kind, id, err);
    char *text = malloc((size_t)size + 1);
    if (text == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading a %s", kind);
    int decompressed = LZ4_decompress_safe(stored->block, text, (int)stored->block_size, (int)size);
    if (decompressed != size || memchr(text, '\0', (size_t)size) != NULL) {
        free(text);
        return report_damaged(kind, id, err);
    }
    text[size] = '\0';
    *out = text;
    return GQ_OK;
}
