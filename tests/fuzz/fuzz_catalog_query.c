/*
 * libFuzzer harness: a GET /catalog query string through catalog_query_set,
 * catalog_query_run and catalog_query_canonical, with the selection and
 * its order checked against the filters restated (tests/fuzz/replay_core.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/replay_core.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Built once; reachable until exit, so LeakSanitizer does not count it. */
static struct catalog *catalog;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    catalog = fuzz_catalog_new();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_query_outcome outcome;
    fuzz_replay_catalog_query(catalog, data, size, &outcome);
    return 0;
}
