/* SPDX-License-Identifier: MIT */
/* libFuzzer target: arbitrary JSON against a schema that uses every
 * constraint the validator has, so each branch of it sees hostile input. */
#include "common/common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const struct schema leaf = { .kinds = SCHEMA_STRING | SCHEMA_INTEGER | SCHEMA_NULL,
                                    .has_min = true,
                                    .min = -5,
                                    .has_max = true,
                                    .max = 5,
                                    .max_length = 8,
                                    .non_empty = true };
static const struct schema choice = { .kinds = SCHEMA_STRING,
                                      .choices = (const char *const[]){ "a", "b", NULL } };
static const struct schema list = {
        .kinds = SCHEMA_ARRAY, .items = &leaf, .min_items = 1, .max_items = 4
};
static const struct schema nested;
static const struct schema root = {
        .kinds = SCHEMA_OBJECT,
        .fields = (const struct schema_field[]){ { "leaf", &leaf, false },
                                                 { "choice", &choice, false },
                                                 { "list", &list, true },
                                                 { "nested", &nested, false },
                                                 { NULL, NULL, false } },
};
static const struct schema nested = { .kinds = SCHEMA_OBJECT | SCHEMA_BOOL | SCHEMA_NUMBER,
                                      .fields = (const struct schema_field[]){
                                          { "again", &root, false }, { NULL, NULL, false } } };

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
        json_t *doc = NULL;
        char err[256];

        if (json_parse_text((const char *)data, size, "fuzz", &doc, err, sizeof(err)) < 0)
                return 0;
        if (schema_validate(doc, &root, "fuzz", err, sizeof(err)) < 0 && strlen(err) == 0)
                __builtin_trap();
        json_decref(doc);
        return 0;
}
