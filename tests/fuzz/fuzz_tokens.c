/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the C++ tokenizer on arbitrary bytes.  Tokens must lie
 * inside the text, in order, without overlap; errors must name a line. */
#include "cxx/cxx.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
        struct token_list list;
        unsigned line = 0;
        size_t end = 0;

        if (tokenize((const char *)data, size, &list, &line) < 0) {
                if (line == 0)
                        __builtin_trap();
                return 0;
        }
        for (size_t i = 0; i < list.n; i++) {
                const struct token *t = &list.tokens[i];
                if (t->start < end || t->start + t->len > size || t->len == 0)
                        __builtin_trap();
                end = t->start + t->len;
                if (token_match(&list, i) < i)
                        __builtin_trap();
        }
        token_list_release(&list);
        return 0;
}
