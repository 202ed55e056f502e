/*
 * The shared server and client of shared.h.
 */
#include "support/shared.h"

struct server shared;
struct http_client *client;

void start_shared(void)
{
    server_start(&shared, NULL);
}

void stop_shared(void)
{
    server_finish_shared(&shared);
}

void open_client(void)
{
    client = http_client_new(shared.port);
}

void close_client(void)
{
    http_client_free(client);
    client = NULL;
}
