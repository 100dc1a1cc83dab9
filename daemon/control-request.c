/* SPDX-License-Identifier: MIT */
/*
 * The part of a control API request that depends on its bytes alone: the
 * body parsed as a JSON object and the fields each POST endpoint needs
 * checked, apart from evhttp so that tests/fuzz/fuzz_request.c reaches it.
 */
#include "control-internal.h"

#include "common/common.h"

#include <stdio.h>
#include <string.h>

/* The checks of one endpoint's fields; 0, or -1 with why filled. */
static int check_fields(const char *path, const json_t *body, char *why, size_t why_size)
{
        bool enqueue = strcmp(path, "/v1/enqueue") == 0;
        const char *op_dir = json_string_value(json_object_get(body, "op_dir"));

        if (enqueue || strcmp(path, "/v1/recreate") == 0) {
                if (!json_string_value(json_object_get(body, "repo")) || !op_dir) {
                        snprintf(why, why_size, "%s needs \"repo\" and \"op_dir\"",
                                 enqueue ? "enqueue" : "recreate");
                        return -1;
                }
                if (enqueue && !path_is_plain_relative(op_dir)) {
                        snprintf(why, why_size,
                                 "\"op_dir\" must be a path inside the repository, relative, "
                                 "with no '.' or '..' component");
                        return -1;
                }
        } else if (strcmp(path, "/v1/cancel") == 0 &&
                   !json_is_integer(json_object_get(body, "id"))) {
                snprintf(why, why_size, "cancel needs an integer \"id\"");
                return -1;
        }
        return 0;
}

json_t *control_request_body(const char *path, const char *text, size_t len, char *why,
                             size_t why_size)
{
        json_error_t error;
        json_t *body;

        if (len > CONTROL_MAX_BODY_BYTES) {
                snprintf(why, why_size, "the body is %zu bytes; at most %d are taken", len,
                         CONTROL_MAX_BODY_BYTES);
                return NULL;
        }
        /* no body is an empty object: pause, resume and reload take none */
        body = len ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &error) : json_object();
        if (!body) {
                if (len)
                        snprintf(why, why_size, "the body is not JSON: %.200s at byte %d",
                                 error.text, error.position);
                else
                        snprintf(why, why_size, "out of memory");
                return NULL;
        }
        if (!json_is_object(body)) {
                snprintf(why, why_size,
                         "the body must be a JSON object, such as "
                         "{\"repo\": \"/path\", \"op_dir\": \"ops/add\"}");
                json_decref(body);
                return NULL;
        }
        if (check_fields(path, body, why, why_size) < 0) {
                json_decref(body);
                return NULL;
        }
        return body;
}
