/* SPDX-License-Identifier: MIT */
/*
 * Output elements the kernel never wrote.  The simulator's GM starts zeroed
 * but an NPU's does not, so an element no path of the kernel wrote holds
 * garbage on hardware while it reads as 0 here: right by accident whenever
 * the answer is mostly zero (masks, is_inf, counts), and for a tail a
 * kernel skipped.  The simulator's runtime records per output how many
 * elements were written (npu/sim/runtime/written.cpp): "written_elements",
 * the first "unwritten" [begin, end) ranges and, when some are unwritten,
 * "written_file", one bit per element.  Here those records are judged: an
 * element the reference wrote and the candidate did not is a wrong answer;
 * without a reference an unwritten element is a warning.  A record without
 * the fields (the ascend backend, an older result) is unknown and judged
 * by its bytes alone.
 */
#include "inputs.h"

#include "common/common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Elements of an output entry's shape; false when it has none. */
static bool shape_elements(const json_t *output, uint64_t *ret)
{
        const json_t *shape = json_object_get(output, "shape"), *d;
        uint64_t n = 1;
        size_t i;

        if (!json_is_array(shape))
                return false;
        json_array_foreach(shape, i, d)
        {
                if (!json_is_integer(d) || json_integer_value(d) < 0)
                        return false;
                n *= (uint64_t)json_integer_value(d);
        }
        *ret = n;
        return true;
}

int npu_written_read(const json_t *output, struct npu_written *ret)
{
        const json_t *written = json_object_get(output, "written_elements");
        const json_t *first =
            json_array_get(json_array_get(json_object_get(output, "unwritten"), 0), 0);

        memset(ret, 0, sizeof(*ret));
        if (!json_is_integer(written) || json_integer_value(written) < 0 ||
            !shape_elements(output, &ret->elements) ||
            (uint64_t)json_integer_value(written) > ret->elements)
                return -ENODATA;
        ret->written = (uint64_t)json_integer_value(written);
        ret->first_unwritten = json_is_integer(first) ? (uint64_t)json_integer_value(first) : 0;
        ret->bits_file = json_string_value(json_object_get(output, "written_file"));
        ret->known = true;
        return 0;
}

/* The one-bit-per-element file of an output with unwritten elements. */
static int read_bits(const struct npu_written *w, unsigned char **ret)
{
        char *data = NULL;
        size_t len = 0, want = (size_t)((w->elements + 7) / 8);
        int r;

        if (!w->bits_file)
                return -ENOENT;
        r = read_untrusted_file(w->bits_file, want + 1, &data, &len);
        if (r < 0)
                return r;
        if (len != want) {
                free(data);
                return -EINVAL;
        }
        *ret = (unsigned char *)data;
        return 0;
}

int npu_written_missing(const json_t *got_output, const json_t *want_output, uint64_t *ret_count,
                        uint64_t *ret_first)
{
        struct npu_written got, want;
        unsigned char *g = NULL, *w = NULL;
        uint64_t count = 0, first = 0;
        int r;

        *ret_count = 0;
        *ret_first = 0;
        if (npu_written_read(got_output, &got) < 0 || npu_written_read(want_output, &want) < 0 ||
            got.elements != want.elements)
                return 0; /* unknown: the bytes alone judge it */
        if (got.written == got.elements || want.written == 0)
                return 0;
        if (want.written == want.elements) {
                *ret_count = got.elements - got.written;
                *ret_first = got.first_unwritten;
                return 0;
        }
        /* both left some alone: element by element */
        r = read_bits(&got, &g);
        if (r == 0)
                r = read_bits(&want, &w);
        if (r < 0)
                goto out;
        for (uint64_t k = 0; k < (got.elements + 7) / 8; k++) {
                unsigned missing = w[k] & (unsigned)~g[k] & 0xffu;
                if (!missing)
                        continue;
                if (!count)
                        first = k * 8 + (uint64_t)__builtin_ctz(missing);
                count += (uint64_t)__builtin_popcount(missing);
        }
        *ret_count = count;
        *ret_first = first;
out:
        free(g);
        free(w);
        return r;
}

int npu_unwritten_warnings(json_t *result)
{
        json_t *warnings = json_array(), *c, *o;
        size_t i, j;

        if (!warnings)
                return -ENOMEM;
        json_array_foreach(json_object_get(result, "cases"), i, c)
        {
                const char *status = json_string_value(json_object_get(c, "status"));
                if (!status || strcmp(status, "ok") != 0)
                        continue;
                json_array_foreach(json_object_get(c, "outputs"), j, o)
                {
                        struct npu_written w;
                        char line[512];
                        const json_t *index = json_object_get(o, "index");
                        char name[160];
                        if (npu_written_read(o, &w) < 0 || w.written == w.elements)
                                continue;
                        if (json_is_integer(index))
                                snprintf(name, sizeof(name), "%s[%" JSON_INTEGER_FORMAT "]",
                                         json_string_value(json_object_get(o, "name")) ?: "?",
                                         json_integer_value(index));
                        else
                                snprintf(name, sizeof(name), "%s",
                                         json_string_value(json_object_get(o, "name")) ?: "?");
                        snprintf(line, sizeof(line),
                                 "case %s: %s: %" PRIu64 " of %" PRIu64
                                 " elements never written by the kernel (the first at index "
                                 "%" PRIu64 "); GM is not zeroed on an NPU, so unless the "
                                 "kernel writes them through a raw pointer, which the simulator "
                                 "cannot see, they hold garbage there",
                                 json_string_value(json_object_get(c, "case")) ?: "?", name,
                                 w.elements - w.written, w.elements, w.first_unwritten);
                        if (json_array_append_new(warnings, json_string(line)) < 0) {
                                json_decref(warnings);
                                return -ENOMEM;
                        }
                }
        }
        if (json_array_size(warnings) == 0) {
                json_decref(warnings);
                return 0;
        }
        return json_object_set_new(result, "warnings", warnings) < 0 ? -ENOMEM : 0;
}
