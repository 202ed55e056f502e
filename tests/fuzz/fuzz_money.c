/*
 * libFuzzer harness: money_parse on arbitrary text, checked against the
 * grammar restated, money_format round trips, and the checked arithmetic
 * on what parses (tests/fuzz/replay_core.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/replay_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gq_money value;
    fuzz_replay_money(data, size, &value);
    return 0;
}
