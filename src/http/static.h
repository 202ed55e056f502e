/*
 * The storefront (static.c): GET / and /static/{id}, the page and its
 * assets built into the binary, each with a gzip copy.
 */
#ifndef GQ_HTTP_STATIC_H
#define GQ_HTTP_STATIC_H

#include "http/request.h"

http_handler static_handle_index;
http_handler static_handle_asset;

#endif
