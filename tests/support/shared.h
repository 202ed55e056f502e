/*
 * The server a test case shares between its tests, and a keep-alive client
 * to it, for suites whose cases only read or add data:
 *
 *   tcase_add_unchecked_fixture(tc, start_shared, stop_shared);
 *   tcase_add_checked_fixture(tc, open_client, close_client);
 *
 * Tests then talk to `shared` through `client`. stop_shared() checks the
 * server's exit status (a failure there fails the program, since Check
 * would ignore an assertion in an unchecked fixture).
 */
#ifndef GQ_TESTS_SUPPORT_SHARED_H
#define GQ_TESTS_SUPPORT_SHARED_H

#include "support/http.h"
#include "support/server.h"

extern struct server shared;
extern struct http_client *client;

void start_shared(void);
void stop_shared(void);
void open_client(void);
void close_client(void);

#endif
