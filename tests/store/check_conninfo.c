/*
 * How a database setting is shown in the log and in errors: a PostgreSQL
 * connection string through libpq's own parser, each secret option
 * (password, sslpassword) masked, the userinfo of a URI masked to its last
 * '@' even where libpq splits it elsewhere, nothing of a string libpq
 * cannot parse; libpq's own messages with each secret taken out.
 */
#include <check.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/backend.h"
#include "store/store.h"

struct described {
    const char *database;
    const char *secrets[3]; /* none of them may be shown */
    const char *shown;      /* a part that is shown */
};

static const struct described cases[] = {
    {"host=db.internal port=5432 user=gq sslpassword=SslSecret1 dbname=gqt",
     {"SslSecret1"},
     "host=db.internal"},
    {"postgresql://gq:Multi@Secret9@127.0.0.1:5432/gqt", {"Multi", "Secret9"}, "dbname=gqt"},
    {"host=db.internal PASSWORD=Upper1Secret", {"Upper1Secret", "db.internal"}, "cannot parse"},
    {"host=db password='a b secret' dbname=gqt", {"a b secret", "secret"}, "password=***"},
    {"postgresql://gq@db/gqt?password=QueryPw2&sslpassword=QuerySsl3",
     {"QueryPw2", "QuerySsl3"},
     "sslpassword=***"},
    {"postgresql://gq:Enc%40oded4@db/gqt", {"Enc@oded4", "Enc%40oded4", "oded4"}, "user=gq"},
    {"postgresql://gq:Broken5@[::1/gqt", {"Broken5"}, "cannot parse"},
    {"host=db password Missing6", {"Missing6"}, "cannot parse"},
    {"/var/lib/gpuquote/gpuquote.db", {"(none)"}, "/var/lib/gpuquote/gpuquote.db"},
};

START_TEST(test_described_without_secrets)
{
    const struct described *c = &cases[_i];
    char out[512];
    store_describe_database(c->database, out, sizeof out);
    for (size_t i = 0; i < 3 && c->secrets[i] != NULL; i++)
        ck_assert_msg(strstr(out, c->secrets[i]) == NULL, "%s shows %s: %s", c->database,
                      c->secrets[i], out);
    ck_assert_msg(strstr(out, c->shown) != NULL, "%s: %s lacks %s", c->database, out, c->shown);
}
END_TEST

/* libpq names the host it could not resolve: "Secret9@127.0.0.1". */
START_TEST(test_libpq_message_masked)
{
    const char *dsn = "postgresql://gq:Multi@Secret9@127.0.0.1:1/gqt?connect_timeout=2";
    PGconn *connection = PQconnectdb(dsn);
    const char *message = PQerrorMessage(connection);
    ck_assert_msg(strstr(message, "Secret9") != NULL, "libpq's message changed: %s", message);
    char out[512];
    postgres_mask_message(dsn, message, out, sizeof out);
    PQfinish(connection);
    ck_assert_ptr_null(strstr(out, "Secret9"));
    ck_assert_ptr_null(strstr(out, "Multi"));
    ck_assert_ptr_nonnull(strstr(out, "***@127.0.0.1"));
}
END_TEST

/* Its parse errors quote the string: none of them passes. */
START_TEST(test_libpq_parse_error_withheld)
{
    const char *dsn = "postgresql://gq:Broken5@[::1/gqt";
    PGconn *connection = PQconnectdb(dsn);
    const char *message = PQerrorMessage(connection);
    ck_assert_msg(strstr(message, "Broken5") != NULL, "libpq's message changed: %s", message);
    char out[512];
    postgres_mask_message(dsn, message, out, sizeof out);
    PQfinish(connection);
    ck_assert_ptr_null(strstr(out, "Broken5"));
    ck_assert_ptr_nonnull(strstr(out, "cannot be parsed"));
}
END_TEST

/* A secret at the end of a buffer too short for it is not left in part. */
START_TEST(test_mask_cut_short_leaves_no_part)
{
    const char *dsn = "host=db password=LongSecretValue";
    char out[16];
    postgres_mask_message(dsn, "0123456789LongSecretValue", out, sizeof out);
    ck_assert_str_eq(out, "0123456789***");
}
END_TEST

static Suite *conninfo_suite(void)
{
    Suite *suite = suite_create("conninfo");
    TCase *tc = tcase_create("conninfo");
    tcase_add_loop_test(tc, test_described_without_secrets, 0, sizeof cases / sizeof cases[0]);
    tcase_add_test(tc, test_libpq_message_masked);
    tcase_add_test(tc, test_libpq_parse_error_withheld);
    tcase_add_test(tc, test_mask_cut_short_leaves_no_part);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(conninfo_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
