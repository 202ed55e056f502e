/*
 * The quotation's PDF (quote_pdf.h): texts in both languages, then the
 * layout, top to bottom, in points on an A4 page. Rows that would run past
 * the foot of a page continue on a new one under the table's header again.
 *
 * One pango font map serves every render, under a mutex: fontconfig reads
 * its configuration and the fonts once, and renders are rare enough that
 * taking turns costs nothing a customer notices.
 */
#include "document/quote_pdf.h"

#include <cairo-pdf.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/money_words.h"
#include "util/buffer.h"

#define PAGE_WIDTH 595.28 /* A4, in points */
#define PAGE_HEIGHT 841.89
#define MARGIN 48.0
#define CONTENT_WIDTH (PAGE_WIDTH - 2 * MARGIN)
#define FOOT (PAGE_HEIGHT - MARGIN)
/* China Standard Time, which has no daylight saving time. */
#define SHANGHAI_OFFSET_SECONDS (8 * 3600)
#define FONT_FAMILY "Noto Sans CJK SC,WenQuanYi Micro Hei,sans-serif"
#define NONE "—"

/* ---- texts -------------------------------------------------------------- */

enum text_id {
    T_TITLE,
    T_NUMBER,
    T_DATE,
    T_VALID_UNTIL,
    T_TIME_ZONE,
    T_SELLER,
    T_CUSTOMER,
    T_NAME,
    T_ADDRESS,
    T_PHONE,
    T_EMAIL,
    T_TAX_ID,
    T_BANK,
    T_ACCOUNT,
    T_COL_NO,
    T_COL_ITEM,
    T_COL_QUANTITY,
    T_COL_USAGE,
    T_COL_PLAN,
    T_COL_UNIT_PRICE,
    T_COL_AMOUNT,
    T_DISCOUNT,
    T_SUBTOTAL,
    T_DISCOUNT_TOTAL,
    T_TOTAL,
    T_IN_WORDS,
    T_VAT,
    T_SELLER_SEAL,
    T_CUSTOMER_SEAL,
    T_SIGNATURE,
    T_SIGNED_ON,
    T_BUNDLE,
    T_PER_HOUR,
    T_PER_MONTH,
    T_PER_QUARTER,
    T_PER_SET,
    T_CONTINUED,
    T_COUNT
};

static const char *const texts[GQ_LANG_COUNT][T_COUNT] = {
    [GQ_LANG_EN] =
        {
            [T_TITLE] = "Quotation",
            [T_NUMBER] = "Quotation no.",
            [T_DATE] = "Date",
            [T_VALID_UNTIL] = "Valid until",
            [T_TIME_ZONE] = "Times are China Standard Time (Asia/Shanghai, UTC+08:00).",
            [T_SELLER] = "Seller",
            [T_CUSTOMER] = "Customer",
            [T_NAME] = "Name",
            [T_ADDRESS] = "Address",
            [T_PHONE] = "Phone",
            [T_EMAIL] = "Email",
            [T_TAX_ID] = "Tax ID",
            [T_BANK] = "Bank",
            [T_ACCOUNT] = "Account",
            [T_COL_NO] = "No.",
            [T_COL_ITEM] = "Configuration",
            [T_COL_QUANTITY] = "Qty",
            [T_COL_USAGE] = "Usage",
            [T_COL_PLAN] = "Plan",
            [T_COL_UNIT_PRICE] = "Unit price",
            [T_COL_AMOUNT] = "Amount",
            [T_DISCOUNT] = "Discount",
            [T_SUBTOTAL] = "Subtotal",
            [T_DISCOUNT_TOTAL] = "Discounts",
            [T_TOTAL] = "Total (CNY)",
            [T_IN_WORDS] = "",
            [T_VAT] = "Listed prices include VAT. VAT invoices (general and special) are "
                      "available on request.",
            [T_SELLER_SEAL] = "Seller (seal)",
            [T_CUSTOMER_SEAL] = "Customer (seal)",
            [T_SIGNATURE] = "Signature",
            [T_SIGNED_ON] = "Date",
            [T_BUNDLE] = "Bundle",
            [T_PER_HOUR] = "/h",
            [T_PER_MONTH] = "/month",
            [T_PER_QUARTER] = "/quarter",
            [T_PER_SET] = "/bundle",
            [T_CONTINUED] = "continued",
        },
    [GQ_LANG_ZH_CN] =
        {
            [T_TITLE] = "报价单",
            [T_NUMBER] = "报价单号",
            [T_DATE] = "报价日期",
            [T_VALID_UNTIL] = "有效期至",
            [T_TIME_ZONE] = "以上时间均为北京时间（Asia/Shanghai，UTC+08:00）。",
            [T_SELLER] = "供方",
            [T_CUSTOMER] = "需方",
            [T_NAME] = "名称",
            [T_ADDRESS] = "地址",
            [T_PHONE] = "电话",
            [T_EMAIL] = "邮箱",
            [T_TAX_ID] = "纳税人识别号",
            [T_BANK] = "开户银行",
            [T_ACCOUNT] = "账号",
            [T_COL_NO] = "序号",
            [T_COL_ITEM] = "配置",
            [T_COL_QUANTITY] = "数量",
            [T_COL_USAGE] = "用量",
            [T_COL_PLAN] = "计费方式",
            [T_COL_UNIT_PRICE] = "单价",
            [T_COL_AMOUNT] = "金额",
            [T_DISCOUNT] = "优惠",
            [T_SUBTOTAL] = "小计",
            [T_DISCOUNT_TOTAL] = "优惠合计",
            [T_TOTAL] = "合计（人民币）",
            [T_IN_WORDS] = "合计人民币（大写）",
            [T_VAT] = "以上价格均含增值税，可开具增值税普通发票或专用发票。",
            [T_SELLER_SEAL] = "供方（盖章）",
            [T_CUSTOMER_SEAL] = "需方（盖章）",
            [T_SIGNATURE] = "签字",
            [T_SIGNED_ON] = "日期",
            [T_BUNDLE] = "套餐礼包",
            [T_PER_HOUR] = "/小时",
            [T_PER_MONTH] = "/月",
            [T_PER_QUARTER] = "/季",
            [T_PER_SET] = "/套",
            [T_CONTINUED] = "续",
        },
};

static const char *const billing_names[GQ_LANG_COUNT][BILLING_MODE_COUNT] = {
    [GQ_LANG_EN] = {"On demand", "Monthly", "Quarterly", "Student"},
    [GQ_LANG_ZH_CN] = {"按需", "包月", "包季", "学生价"},
};

/* ---- drawing ------------------------------------------------------------ */

struct page {
    cairo_t *cr;
    PangoContext *context;
    enum gq_lang lang;
    double y;
    int number;
};

static const char *text(const struct page *page, enum text_id id)
{
    return texts[page->lang][id];
}

static const char *or_none(const char *value)
{
    return value != NULL && value[0] != '\0' ? value : NONE;
}

enum align { LEFT, RIGHT, CENTER };

/* Lays `content` out in `width` at (x, y); returns its height. Words wrap
 * at their edges only (pango's default): a name never breaks inside. */
static double draw(struct page *page, double x, double y, double width, const char *content,
                   double size, bool bold, enum align align)
{
    PangoLayout *layout = pango_layout_new(page->context);
    PangoFontDescription *font = pango_font_description_from_string(FONT_FAMILY);
    pango_font_description_set_absolute_size(font, size * PANGO_SCALE);
    pango_font_description_set_weight(font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
    pango_layout_set_font_description(layout, font);
    pango_layout_set_width(layout, (int)(width * PANGO_SCALE));
    pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    pango_layout_set_alignment(layout, align == RIGHT    ? PANGO_ALIGN_RIGHT
                                       : align == CENTER ? PANGO_ALIGN_CENTER
                                                         : PANGO_ALIGN_LEFT);
    pango_layout_set_text(layout, content, -1);
    cairo_move_to(page->cr, x, y);
    pango_cairo_show_layout(page->cr, layout);
    int height;
    pango_layout_get_size(layout, NULL, &height);
    pango_font_description_free(font);
    g_object_unref(layout);
    return (double)height / PANGO_SCALE;
}

static void rule(struct page *page, double y, double width)
{
    cairo_set_line_width(page->cr, width);
    cairo_move_to(page->cr, MARGIN, y);
    cairo_line_to(page->cr, PAGE_WIDTH - MARGIN, y);
    cairo_stroke(page->cr);
}

static void new_page(struct page *page)
{
    cairo_show_page(page->cr);
    page->number++;
    page->y = MARGIN;
}

/* "¥1,641.60", "-¥12.00": one format in both languages. */
static void format_yuan(gq_money fen, char *out, size_t size)
{
    uint64_t magnitude = fen < 0 ? (uint64_t)0 - (uint64_t)fen : (uint64_t)fen;
    uint64_t yuan = magnitude / 100;
    char digits[32], grouped[48];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)yuan);
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            grouped[at++] = ',';
        grouped[at++] = digits[i];
    }
    grouped[at] = '\0';
    snprintf(out, size, "%s¥%s.%02u", fen < 0 ? "-" : "", grouped, (unsigned)(magnitude % 100));
}

/* "8", "7.5": hours without trailing zeros. */
static void format_hours(int64_t millihours, char *out, size_t size)
{
    if (millihours % 1000 == 0)
        snprintf(out, size, "%lld", (long long)(millihours / 1000));
    else if (millihours % 100 == 0)
        snprintf(out, size, "%lld.%lld", (long long)(millihours / 1000),
                 (long long)(millihours % 1000 / 100));
    else
        snprintf(out, size, "%lld.%03lld", (long long)(millihours / 1000),
                 (long long)(millihours % 1000));
}

/* "2026-12-06 09:47" in China Standard Time. */
static void format_shanghai(int64_t unix_seconds, char *out, size_t size)
{
    time_t local = (time_t)(unix_seconds + SHANGHAI_OFFSET_SECONDS);
    struct tm tm;
    gmtime_r(&local, &tm);
    strftime(out, size, "%Y-%m-%d %H:%M", &tm);
}

/* ---- the blocks, top to bottom ------------------------------------------ */

static void draw_heading(struct page *page, const struct document_quote *quote)
{
    char created[32], expires[32], facts[256];
    format_shanghai(quote->created_at, created, sizeof created);
    format_shanghai(quote->expires_at, expires, sizeof expires);
    const char *colon = page->lang == GQ_LANG_ZH_CN ? "：" : ": ";
    draw(page, MARGIN, page->y, CONTENT_WIDTH / 2, text(page, T_TITLE), 22, true, LEFT);
    snprintf(facts, sizeof facts, "%s%s%s\n%s%s%s\n%s%s%s", text(page, T_NUMBER), colon,
             quote->number, text(page, T_DATE), colon, created, text(page, T_VALID_UNTIL), colon,
             expires);
    double height = draw(page, MARGIN + CONTENT_WIDTH / 3, page->y, CONTENT_WIDTH * 2 / 3, facts, 9,
                         false, RIGHT);
    page->y += height + 2;
    page->y += draw(page, MARGIN, page->y, CONTENT_WIDTH, text(page, T_TIME_ZONE), 8, false, RIGHT);
    page->y += 6;
    rule(page, page->y, 1.2);
    page->y += 8;
}

static double draw_party(struct page *page, double x, double width, enum text_id title,
                         const struct document_party *party)
{
    static const struct document_party nobody = {0};
    const struct document_party *p = party != NULL ? party : &nobody;
    const char *colon = page->lang == GQ_LANG_ZH_CN ? "：" : ": ";
    char body[1536];
    snprintf(body, sizeof body, "%s%s%s\n%s%s%s\n%s%s%s\n%s%s%s\n%s%s%s\n%s%s%s\n%s%s%s",
             text(page, T_NAME), colon, or_none(p->name), text(page, T_ADDRESS), colon,
             or_none(p->address), text(page, T_PHONE), colon, or_none(p->phone),
             text(page, T_EMAIL), colon, or_none(p->email), text(page, T_TAX_ID), colon,
             or_none(p->tax_id), text(page, T_BANK), colon, or_none(p->bank), text(page, T_ACCOUNT),
             colon, or_none(p->account));
    double height = draw(page, x, page->y, width, text(page, title), 10.5, true, LEFT);
    return height + 2 + draw(page, x, page->y + height + 2, width, body, 8.5, false, LEFT);
}

static void draw_parties(struct page *page, const struct document_quote *quote)
{
    double half = CONTENT_WIDTH / 2 - 8;
    double seller = draw_party(page, MARGIN, half, T_SELLER, quote->seller);
    double customer =
        draw_party(page, MARGIN + CONTENT_WIDTH / 2 + 8, half, T_CUSTOMER, quote->customer);
    page->y += (seller > customer ? seller : customer) + 10;
}

/* The table's columns: left edge and width of each. */
enum column { COL_NO, COL_ITEM, COL_QUANTITY, COL_USAGE, COL_PLAN, COL_UNIT, COL_AMOUNT, COLS };
static const double column_width[COLS] = {26, 112, 32, 96, 62, 88, 83.28};

static double column_x(enum column column)
{
    double x = MARGIN;
    for (int c = 0; c < (int)column; c++)
        x += column_width[c];
    return x;
}

static double draw_cells(struct page *page, const char *const cells[COLS], bool bold)
{
    static const enum align aligns[COLS] = {LEFT, LEFT, RIGHT, LEFT, LEFT, RIGHT, RIGHT};
    double tallest = 0;
    for (int c = 0; c < COLS; c++) {
        double pad = c == COLS - 1 ? 0 : 4;
        double height = draw(page, column_x((enum column)c), page->y + 3, column_width[c] - pad,
                             cells[c], 8.5, bold, aligns[c]);
        if (height > tallest)
            tallest = height;
    }
    return tallest + 6;
}

static void draw_table_header(struct page *page)
{
    const char *const cells[COLS] = {text(page, T_COL_NO),       text(page, T_COL_ITEM),
                                     text(page, T_COL_QUANTITY), text(page, T_COL_USAGE),
                                     text(page, T_COL_PLAN),     text(page, T_COL_UNIT_PRICE),
                                     text(page, T_COL_AMOUNT)};
    cairo_set_source_rgb(page->cr, 0.93, 0.93, 0.93);
    cairo_rectangle(page->cr, MARGIN, page->y, CONTENT_WIDTH, 20);
    cairo_fill(page->cr);
    cairo_set_source_rgb(page->cr, 0, 0, 0);
    page->y += draw_cells(page, cells, true) > 20 ? 24 : 20;
}

static void describe_usage(const struct page *page, const struct document_line *line, char *out,
                           size_t size)
{
    char hours[32];
    if (line->millihours_per_day == 0) {
        snprintf(out, size, NONE);
        return;
    }
    format_hours(line->millihours_per_day, hours, sizeof hours);
    if (page->lang == GQ_LANG_ZH_CN)
        snprintf(out, size, "每天 %s 小时，共 %lld 天", hours, (long long)line->days);
    else
        snprintf(out, size, "%s h/day for %lld days", hours, (long long)line->days);
}

static const char *unit_text(const struct page *page, enum document_unit unit)
{
    static const enum text_id ids[] = {T_PER_HOUR, T_PER_MONTH, T_PER_QUARTER, T_PER_SET};
    return text(page, ids[unit]);
}

/* The plan column and the unit-price column: one part a line. */
static void describe_parts(const struct page *page, const struct document_line *line, char *plan,
                           char *unit, size_t size)
{
    size_t plan_at = 0, unit_at = 0;
    plan[0] = unit[0] = '\0';
    for (int i = 0; i < line->n_parts && i < DOCUMENT_PARTS_MAX; i++) {
        const struct document_part *part = &line->parts[i];
        char price[48];
        format_yuan(part->unit_price, price, sizeof price);
        const char *name =
            part->is_bundle ? text(page, T_BUNDLE) : billing_names[page->lang][part->billing];
        const char *sep = i > 0 ? "\n" : "";
        int wrote = snprintf(plan + plan_at, size - plan_at, "%s%s", sep, name);
        plan_at += wrote > 0 && (size_t)wrote < size - plan_at ? (size_t)wrote : 0;
        wrote = snprintf(unit + unit_at, size - unit_at, "%s%s%s", sep, price,
                         unit_text(page, part->unit));
        unit_at += wrote > 0 && (size_t)wrote < size - unit_at ? (size_t)wrote : 0;
    }
}

static void draw_line(struct page *page, size_t index, const struct document_line *line)
{
    char no[16], quantity[32], usage[96], plan[256], unit[256], amount[48];
    snprintf(no, sizeof no, "%zu", index + 1);
    snprintf(quantity, sizeof quantity, "%lld", (long long)line->quantity);
    describe_usage(page, line, usage, sizeof usage);
    describe_parts(page, line, plan, unit, sizeof plan);
    format_yuan(line->amount, amount, sizeof amount);
    const char *const cells[COLS] = {no, or_none(line->item), quantity, usage, plan, unit, amount};
    if (page->y + 40 > FOOT) {
        new_page(page);
        draw_table_header(page);
    }
    page->y += draw_cells(page, cells, false);
    cairo_set_source_rgb(page->cr, 0.75, 0.75, 0.75);
    rule(page, page->y, 0.5);
    cairo_set_source_rgb(page->cr, 0, 0, 0);
}

/* A label and an amount, right-aligned under the amount column. */
static void draw_sum(struct page *page, const char *label, gq_money fen, bool bold)
{
    char amount[48];
    format_yuan(fen, amount, sizeof amount);
    if (page->y + 20 > FOOT)
        new_page(page);
    double label_x = column_x(COL_PLAN);
    draw(page, label_x, page->y + 2, column_x(COL_AMOUNT) - label_x - 4, label, bold ? 10 : 8.5,
         bold, RIGHT);
    page->y += draw(page, column_x(COL_AMOUNT), page->y + 2, column_width[COL_AMOUNT], amount,
                    bold ? 10 : 8.5, bold, RIGHT) +
               4;
}

static void draw_totals(struct page *page, const struct document_quote *quote)
{
    page->y += 4;
    for (size_t i = 0; i < quote->n_discounts; i++) {
        char label[320];
        snprintf(label, sizeof label, "%s%s%s", text(page, T_DISCOUNT),
                 page->lang == GQ_LANG_ZH_CN ? "：" : ": ", or_none(quote->discounts[i].name));
        draw_sum(page, label, -quote->discounts[i].amount, false);
    }
    draw_sum(page, text(page, T_SUBTOTAL), quote->subtotal, false);
    draw_sum(page, text(page, T_DISCOUNT_TOTAL), -quote->discount_total, false);
    rule(page, page->y, 1.0);
    page->y += 2;
    draw_sum(page, text(page, T_TOTAL), quote->total, true);
    char words[MONEY_WORDS_SIZE], line[MONEY_WORDS_SIZE + 64];
    if (page->lang == GQ_LANG_ZH_CN && money_words_zh(quote->total, words)) {
        snprintf(line, sizeof line, "%s：%s", text(page, T_IN_WORDS), words);
        page->y += draw(page, MARGIN, page->y + 4, CONTENT_WIDTH, line, 10, true, RIGHT) + 6;
    }
    page->y += 6;
    page->y += draw(page, MARGIN, page->y, CONTENT_WIDTH, text(page, T_VAT), 8.5, false, LEFT) + 14;
}

static void draw_seal_box(struct page *page, double x, double width, enum text_id title)
{
    const char *colon = page->lang == GQ_LANG_ZH_CN ? "：" : ": ";
    char signature[64], signed_on[64];
    snprintf(signature, sizeof signature, "%s%s", text(page, T_SIGNATURE), colon);
    snprintf(signed_on, sizeof signed_on, "%s%s", text(page, T_SIGNED_ON), colon);
    cairo_set_line_width(page->cr, 0.8);
    cairo_rectangle(page->cr, x, page->y, width, 110);
    cairo_stroke(page->cr);
    draw(page, x + 8, page->y + 8, width - 16, text(page, title), 9.5, true, LEFT);
    draw(page, x + 8, page->y + 70, width - 16, signature, 9, false, LEFT);
    draw(page, x + 8, page->y + 88, width - 16, signed_on, 9, false, LEFT);
}

static void draw_seal_boxes(struct page *page)
{
    if (page->y + 110 > FOOT)
        new_page(page);
    double half = CONTENT_WIDTH / 2 - 8;
    draw_seal_box(page, MARGIN, half, T_SELLER_SEAL);
    draw_seal_box(page, MARGIN + CONTENT_WIDTH / 2 + 8, half, T_CUSTOMER_SEAL);
    page->y += 110;
}

static void draw_document(struct page *page, const struct document_quote *quote)
{
    draw_heading(page, quote);
    draw_parties(page, quote);
    draw_table_header(page);
    for (size_t i = 0; i < quote->n_lines; i++)
        draw_line(page, i, &quote->lines[i]);
    draw_totals(page, quote);
    draw_seal_boxes(page);
}

/* ---- the file ----------------------------------------------------------- */

struct buffer {
    char *bytes;
    size_t length, capacity;
    bool failed;
};

static cairo_status_t append(void *closure, const unsigned char *data, unsigned int length)
{
    struct buffer *buffer = closure;
    if (!buffer_grow(&buffer->bytes, &buffer->capacity, buffer->length + length, 65536)) {
        buffer->failed = true;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    memcpy(buffer->bytes + buffer->length, data, length);
    buffer->length += length;
    return CAIRO_STATUS_SUCCESS;
}

static pthread_mutex_t render_lock = PTHREAD_MUTEX_INITIALIZER;
static PangoFontMap *font_map; /* under render_lock; made by the first render */

static bool render(const struct document_quote *quote, struct buffer *buffer)
{
    cairo_surface_t *surface =
        cairo_pdf_surface_create_for_stream(append, buffer, PAGE_WIDTH, PAGE_HEIGHT);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, texts[quote->lang][T_TITLE]);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "gpuquote");
    cairo_t *cr = cairo_create(surface);
    if (font_map == NULL)
        font_map = pango_cairo_font_map_new();
    PangoContext *context = pango_font_map_create_context(font_map);
    pango_cairo_update_context(cr, context);
    struct page page = {cr, context, quote->lang, MARGIN, 1};
    cairo_set_source_rgb(cr, 0, 0, 0);
    draw_document(&page, quote);
    g_object_unref(context);
    cairo_destroy(cr);
    cairo_surface_finish(surface);
    bool ok = cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS && !buffer->failed;
    cairo_surface_destroy(surface);
    return ok;
}

bool document_quote_pdf(const struct document_quote *quote, unsigned char **pdf, size_t *length)
{
    struct buffer buffer = {NULL, 0, 0, false};
    pthread_mutex_lock(&render_lock);
    bool ok = render(quote, &buffer);
    pthread_mutex_unlock(&render_lock);
    if (!ok) {
        free(buffer.bytes);
        buffer.bytes = NULL;
        buffer.length = 0;
    }
    *pdf = (unsigned char *)buffer.bytes;
    *length = buffer.length;
    return ok;
}

void document_quote_pdf_shutdown(void)
{
    pthread_mutex_lock(&render_lock);
    if (font_map != NULL) {
        g_object_unref(font_map);
        font_map = NULL;
    }
    pthread_mutex_unlock(&render_lock);
    cairo_debug_reset_static_data();
    FcFini();
}
