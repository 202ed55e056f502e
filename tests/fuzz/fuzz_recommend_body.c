/*
 * libFuzzer harness: a POST /recommend body through body_load (the
 * server's loader), recommend_body_parse, recommend_run and
 * recommend_body_render, the text loaded back, every recommendation checked
 * against its limits and re-priced by quote_compute
 * (tests/fuzz/replay_bodies.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/replay_bodies.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Built once; reachable until exit, so LeakSanitizer does not count them. */
static struct catalog *catalog;
static struct fuzz_recommend_workspace *work;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    catalog = fuzz_catalog_new();
    work = fuzz_recommend_workspace_new();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_body_outcome outcome;
    fuzz_replay_recommend_body(catalog, work, data, size, &outcome);
    return 0;
}
