/* SPDX-License-Identifier: MIT */
/* libFuzzer target: arbitrary bytes as a control API POST body, through the
 * parsing and field checks the daemon applies before anything else sees
 * it.  The first byte picks the endpoint.  Any input must give either an
 * object with the fields its endpoint needs or one error message. */
#include "common/common.h"
#include "daemon/control-internal.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const char *const endpoints[] = { "/v1/enqueue", "/v1/recreate", "/v1/cancel",
                                         "/v1/pause",   "/v1/reload",   "/v1/nothing" };

/* Whether a relative path cannot leave the folder it is taken from:
 * written apart from path_is_plain_relative(), which it checks. */
static bool stays_inside(const char *path)
{
        const char *p = path;

        if (!*p || *p == '/')
                return false;
        for (;;) {
                size_t len = strcspn(p, "/");
                if (len == 0 || (len == 1 && p[0] == '.') ||
                    (len == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                if (!p[len])
                        return true;
                p += len + 1;
        }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
        const char *path;
        char why[320] = "";
        json_t *body;

        if (size == 0)
                return 0;
        path = endpoints[data[0] % (sizeof(endpoints) / sizeof(endpoints[0]))];
        body = control_request_body(path, (const char *)data + 1, size - 1, why, sizeof(why));
        if (!body) {
                if (!why[0])
                        __builtin_trap();
                return 0;
        }
        if (!json_is_object(body))
                __builtin_trap();
        if ((strcmp(path, "/v1/enqueue") == 0 || strcmp(path, "/v1/recreate") == 0) &&
            (!json_is_string(json_object_get(body, "repo")) ||
             !json_is_string(json_object_get(body, "op_dir"))))
                __builtin_trap();
        if (strcmp(path, "/v1/enqueue") == 0 &&
            !stays_inside(json_string_value(json_object_get(body, "op_dir"))))
                __builtin_trap();
        if (strcmp(path, "/v1/cancel") == 0 && !json_is_integer(json_object_get(body, "id")))
                __builtin_trap();
        json_decref(body);
        return 0;
}
