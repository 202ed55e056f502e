/*
 * API keys (auth.c): the keys in force, who a request's caller is, whether
 * its key holds a route's scope, and what an audit line says of it.
 */
#ifndef GQ_HTTP_AUTH_H
#define GQ_HTTP_AUTH_H

#include <stdbool.h>

#include "core/error.h"
#include "http/app.h"
#include "http/request.h"
#include "store/store.h"

struct keyring;

/* Before serving: the trusted proxies parsed, the rate limits made, the
 * keys in force loaded. False (logged) when one fails. auth_stop() undoes
 * it (and records the keys' last uses); safe after a failed start. */
bool auth_start(struct app *app);
void auth_stop(struct app *app);

/* Loads the keys in force from the store and makes them current (the
 * previous set's uses are recorded first). False, with the set loaded
 * before kept, when loading fails. */
bool keyring_reload(struct app *app);

/* Makes the keys of `list` (taken over) the keys in force, as a reload
 * does once it has read them. False (logged) when memory runs out. */
bool keyring_install(struct app *app, struct key_list *list);

/* Records in the store when each key was last used, for keys used since
 * the last call; cheap when none was. */
void keyring_record_uses(struct app *app);

/* Frees the current set (at the end). */
void keyring_clear(struct app *app);

/* Reads the request's Authorization header: no header is no key; a key in
 * force sets request->has_key and what it is; anything else is 401
 * unauthenticated (invalid_token). Returns GQ_OK or the failure in err. */
enum gq_code auth_identify(struct http_request *request, struct gq_error *err);

/* GQ_OK when the request's key holds `scope` (SCOPE_NONE: always); 401
 * without a key, 403 forbidden naming the scope with one that lacks it. */
enum gq_code auth_require(const struct http_request *request, unsigned scope, struct gq_error *err);

/* What an audit line says of the caller: its key, address and request. */
struct audit_entry auth_audit_entry(const struct http_request *request, const char *action,
                                    const char *target, const char *change);

#endif
