/*
 * libFuzzer harness: a POST /quote body through body_load (the server's
 * loader), quote_body_parse, quote_compute (the result sized as the handler
 * sizes it) and quote_body_render, the text loaded back, the totals, the
 * cheapest plan and every amount checked (tests/fuzz/replay_bodies.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/replay_bodies.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Built once; reachable until exit, so LeakSanitizer does not count them. */
static struct catalog *catalog;
static struct fuzz_quote_workspace *work;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    catalog = fuzz_catalog_new();
    work = malloc(sizeof *work);
    FUZZ_CHECK(work != NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_body_outcome outcome;
    fuzz_replay_quote_body(catalog, work, data, size, &outcome);
    return 0;
}
