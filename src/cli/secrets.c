/*
 * The secrets keyring at start (secrets.h).
 */
#include "cli/secrets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"

/* Reads or makes the keyring; false with the reason logged. */
static bool load_keyring(const struct gq_config *config, struct secret_keyring *ring)
{
    char why[256];
    if (config->secrets_key != NULL) {
        if (secret_keyring_parse(config->secrets_key, ring, why, sizeof why))
            return true;
        log_error("secrets_key (GPUQUOTE_SECRETS_KEY): %s", why);
        return false;
    }
    char default_path[1024];
    const char *path = config->secrets_key_file;
    bool is_default = path == NULL;
    if (is_default) {
        if (store_database_is_postgres(config->database)) {
            /* Replicas share the database, so one replica cannot make
             * the key for all of them: the operator sets it. */
            secret_keyring_clear(ring);
            log_warning("webhook secrets are stored in clear: set secrets_key_file or "
                        "GPUQUOTE_SECRETS_KEY (the same key on every replica) to seal them");
            return true;
        }
        snprintf(default_path, sizeof default_path, "%s.secrets-key", config->database);
        path = default_path;
    }
    bool missing = false;
    if (secret_keyring_load(path, ring, &missing, why, sizeof why))
        return true;
    if (!missing) {
        log_error("secrets key file %s", why);
        return false;
    }
    char id[SECRET_BOX_ID_SIZE];
    snprintf(id, sizeof id, "k%lld", (long long)time(NULL));
    if (!secret_keyring_create(path, id, ring, why, sizeof why)) {
        /* Another process sharing the database may have made it just now. */
        if (secret_keyring_load(path, ring, &missing, why, sizeof why))
            return true;
        log_error("cannot make the secrets key file: %s", why);
        return false;
    }
    log_info("made the secrets key %s in %s (mode 0600): webhook secrets are sealed with it; "
             "keep it with the database's backups, apart from them",
             id, path);
    return true;
}

bool cli_secrets_prepare(struct gq_config *config, struct store *store, struct secret_keyring *ring)
{
    if (!load_keyring(config, ring))
        return false;
    config->secrets_keyring = ring;
    size_t resealed = 0;
    struct gq_error err;
    if (store_webhook_secrets_reseal(store, ring, &resealed, &err) != GQ_OK) {
        log_error("%s", err.message);
        return false;
    }
    if (resealed > 0)
        log_info("webhook secrets: %zu sealed with key %s", resealed, ring->keys[0].id);
    return true;
}
