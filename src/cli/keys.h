/*
 * API keys from the command line: `gpuquote keys create --name NAME
 * --scope SCOPE...`, `gpuquote keys list`, `gpuquote keys revoke ID`, and
 * the first start's local key (bootstrap_key_file).
 */
#ifndef GQ_CLI_KEYS_H
#define GQ_CLI_KEYS_H

#include "store/store.h"
#include "util/config.h"

/* Checks `gpuquote keys ...` before the database is opened: -1 when it
 * asks for an action on the store; otherwise it has printed the usage
 * (--help, or no action) or what is wrong, and returns the exit status. */
int cli_keys_check(const struct gq_config *config);

/* Runs `gpuquote keys ...` (config->command_argv) on `store`; the exit
 * status: 0, 1 when the store fails, 2 for a wrong command line. */
int cli_keys(const struct gq_config *config, struct store *store);

/* When bootstrap_key_file is set and the database holds no key at all:
 * makes a key with every scope and writes its secret there, mode 0600, so
 * that a newcomer is one step from every example. False when that was
 * asked and failed. */
bool cli_keys_bootstrap(const struct gq_config *config, struct store *store);

#endif
