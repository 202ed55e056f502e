/*
 * Every statement the PostgreSQL backend prepares on its connections, in
 * one table: the hot paths of POST /quote, GET /quote/{id}, accepting, and
 * the catalog poller's version check, each a prepared name for a text of
 * queries.h's store_sql. (The catalog's own queries run once per reload and
 * are not prepared: postgres/catalog.c.)
 */
#include "store/postgres/pg.h"

const struct pg_statement_text pg_statements[PG_STATEMENT_COUNT] = {
    [PG_QUOTE_INSERT_BATCH] = {"gq_quote_insert_batch", STORE_SQL_QUOTE_INSERT, 18},
    [PG_QUOTE_BY_ID] = {"gq_quote_by_id", STORE_SQL_QUOTE_BY_ID, 1},
    [PG_QUOTE_BY_KEY] = {"gq_quote_by_key", STORE_SQL_QUOTE_BY_KEY, 2},
    [PG_QUOTE_ACCEPT] = {"gq_quote_accept", STORE_SQL_QUOTE_ACCEPT, 3},
    [PG_QUOTE_CANCEL] = {"gq_quote_cancel", STORE_SQL_QUOTE_CANCEL, 3},
    [PG_QUOTES_LIST] = {"gq_quotes_list", STORE_SQL_QUOTES_LIST, 11},
    [PG_QUOTES_EXPIRE] = {"gq_quotes_expire", STORE_SQL_QUOTES_EXPIRE, 2},
    [PG_PRICE_LIST_VERSION] = {"gq_price_list_version", STORE_SQL_PRICE_LIST_VERSION, 0},
};
