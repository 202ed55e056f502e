/*
 * libFuzzer harness: a request's line and headers through the request
 * front without sockets — the router, the path's decoding, the policy
 * (404/405/413, the query, the key and its scope, the rate limit, the
 * body's media type), the CORS origin, If-None-Match, the Idempotency-Key,
 * Accept-Language and the query's parsing — every step's invariants
 * checked (tests/fuzz/replay_front.h describes the input).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/replay_front.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Built once; reachable until exit, so LeakSanitizer does not count it. */
static struct fuzz_front *front;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    front = fuzz_front_new();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_front_outcome outcome;
    fuzz_replay_request_front(front, data, size, &outcome);
    return 0;
}
