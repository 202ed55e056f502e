/*
 * The storefront (static.c): GET / and /static/{id}, the page and its
 * assets built into the binary, each with a gzip copy.
 */
#ifndef GQ_HTTP_STATIC_H
#define GQ_HTTP_STATIC_H

#include "http/request.h"

enum MHD_Result static_handle_index(struct http_request *request);
enum MHD_Result static_handle_asset(struct http_request *request);

#endif
