/*
 * The keyring that keeps webhook secrets encrypted in the database, at
 * start: read from secrets_key (the text itself) or secrets_key_file, or,
 * with SQLite and neither set, from <database>.secrets-key, made (mode
 * 0600) at the first start; then every stored secret is sealed with the
 * keyring's first key (clear ones, and ones of an older key).
 */
#ifndef GQ_CLI_SECRETS_H
#define GQ_CLI_SECRETS_H

#include "store/store.h"
#include "util/config.h"
#include "util/secret_box.h"

/* Loads the keyring into `ring`, points config->secrets_keyring at it and
 * seals the stored secrets anew. False, with the reason logged (never any
 * key), when the keyring cannot be read or made, or a stored secret does
 * not open with it: the server must not start and sign with a wrong key. */
bool cli_secrets_prepare(struct gq_config *config, struct store *store,
                         struct secret_keyring *ring);

#endif
