/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JSON-RPC 2.0 framing for the MCP server: one line in, one classified
 * message out; responses and errors built as single-line strings.
 * Pure: no I/O, no clock, no environment.
 */
#pragma once

#include "common.h"

struct json_object;

/* Standard JSON-RPC error codes (and the one server-defined code we use). */
enum {
        ACS_JRPC_PARSE_ERROR = -32700,
        ACS_JRPC_INVALID_REQUEST = -32600,
        ACS_JRPC_METHOD_NOT_FOUND = -32601,
        ACS_JRPC_INVALID_PARAMS = -32602,
        ACS_JRPC_INTERNAL_ERROR = -32603,
        ACS_JRPC_SERVER_BUSY = -32000,
};

/* Longest line the server buffers; longer ones are answered with an error and skipped. */
#define ACS_JRPC_MAX_LINE (16u << 20)

typedef enum {
        ACS_JRPC_REQUEST,      /* method + id: must be answered */
        ACS_JRPC_NOTIFICATION, /* method, no id: never answered */
        ACS_JRPC_RESPONSE,     /* result/error from the peer; a server that sends no requests ignores it */
        ACS_JRPC_INVALID,      /* answer with err_code/err_msg and id (JSON null when id_json is NULL) */
} acs_jrpc_kind;

typedef struct acs_jrpc_msg {
        acs_jrpc_kind kind;
        struct json_object *root;   /* owned */
        char *id_json;              /* owned: the id's JSON text byte for byte as received; NULL if none/unusable */
        char *id_key;               /* owned: the id for comparisons (acs_jrpc_id_key); NULL with id_json */
        const char *raw;            /* borrowed: the line parsed, for acs_jrpc_param_id_key */
        size_t raw_len;
        const char *method;         /* borrowed from root; NUL-free */
        struct json_object *params; /* borrowed from root; object or array, or NULL */
        int err_code;               /* ACS_JRPC_INVALID */
        const char *err_msg;        /* ACS_JRPC_INVALID: static text */
} acs_jrpc_msg;

/*
 * Classify one line (without its '\n'; a trailing '\r' is tolerated).
 * Always fills ret (kind INVALID for anything malformed, including batch
 * arrays, which the 2025-06-18 protocol removed). Returns 0, or -ENOMEM.
 * ret->raw points into line: valid while line is.
 *
 * The id is echoed exactly as the client wrote it: json-c saturates
 * integers beyond 64 bits and re-escapes strings, so id_json is the raw
 * token from the line, not json-c's serialisation of the value.
 */
int acs_jrpc_parse(const char *line, size_t len, acs_jrpc_msg *ret);

/*
 * The key two ids are compared by (a request and a cancellation naming it):
 * a string id by its value (however it was escaped), a number by its text
 * as sent, so ids beyond 64 bits are never confused. Caller frees.
 */
char *acs_jrpc_id_key(struct json_object *id, const char *raw, size_t raw_len);
/* acs_jrpc_id_key of params[member] (e.g. notifications/cancelled's "requestId"), or NULL. */
char *acs_jrpc_param_id_key(const acs_jrpc_msg *m, const char *member);
void acs_jrpc_msg_done(acs_jrpc_msg *m);

/* True for a line that is only whitespace (skipped, not an error). */
bool acs_jrpc_blank(const char *line, size_t len);

/*
 * Build one response line, without the trailing '\n' (the caller frames it).
 * id_json NULL means JSON null. The result/data objects are borrowed.
 */
int acs_jrpc_result(const char *id_json, struct json_object *result, char **ret);
/* result_json must be one serialised JSON value with no newline (checked). */
int acs_jrpc_result_raw(const char *id_json, const char *result_json, size_t len, char **ret);
int acs_jrpc_error(const char *id_json, int code, const char *message, struct json_object *data,
                   char **ret);

/* Serialise a json-c value as one line (no pretty-print, no escaped slashes). Caller frees. */
char *acs_jrpc_to_line(struct json_object *o);

/* Length of the longest prefix of s, at most max bytes, that ends on a UTF-8 boundary. */
int acs_jrpc_utf8_prefix(const char *s, int max);
